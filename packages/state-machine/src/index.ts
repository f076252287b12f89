export * from './states.js';
