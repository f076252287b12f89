export * from './states.js';
export * from './transitions.js';
export * from './plan.js';
export * from './retry.js';
export * from './items.js';
