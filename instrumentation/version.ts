/** Instrumentation scope of the library's tracer (kept equal to package.json's version by a unit test). */
export const INSTRUMENTATION_NAME = '@tooltrail/instrumentation';
export const INSTRUMENTATION_VERSION = '0.1.0';
