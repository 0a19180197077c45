/** The shared contract: codes and attribute names. Every stage imports from here and nowhere else. */
export * from './attribute-values.ts';
export * from './attributes.ts';
export * from './codes.ts';
export * from './resource.ts';
