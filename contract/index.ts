/**
 * The shared contract: codes, span attribute names and their value rules, the result envelope, ids and the tenant
 * rule. Every stage imports from here and nowhere else.
 */
export * from './attribute-values.ts';
export * from './attributes.ts';
export * from './codes.ts';
export * from './cursors.ts';
export * from './emitters.ts';
export * from './envelope.ts';
export * from './ids.ts';
export * from './resource.ts';
export * from './result-shapes.ts';
export * from './tool-policy.ts';
