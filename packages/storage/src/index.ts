export type { ObjectBody, ObjectInfo, ObjectStore, PutOptions } from './types.js';
export { InvalidObjectKeyError, InvalidStorageUrlError, ObjectKeyConflictError, ObjectNotFoundError, ObjectSizeMismatchError, ObjectStoreError } from './errors.js';
export { isValidObjectKey, MAX_KEY_LENGTH, MAX_SEGMENT_LENGTH, RESERVED_TOP_SEGMENT, validateListPrefix, validateObjectKey } from './keys.js';
export { FileObjectStore, type FileObjectStoreOptions } from './file-store.js';
export { S3ObjectStore, type S3ObjectStoreOptions } from './s3-store.js';
export { createObjectStore, parseObjectStoreUrl, redactUrl, type FileObjectStoreTarget, type ObjectStoreTarget, type S3ObjectStoreTarget } from './url.js';
