export { addressesRefusal, checkedAddress, guardedLookup, postTo, type PostAnswer, RefusedTarget, type Resolve, systemResolve, type TargetPolicy } from './target-guard.js';
