// Test support for container executors (see README.md).
export { dockerAt, testDocker, testDockerTls, type TestDocker, type TestDockerTls } from './docker.js';
export { ensureTestImages, TEST_LABEL, type EnsureTestImagesOptions, type TestImages } from './images.js';
export { Rootfs } from './rootfs.js';
export { runContainer, type ContainerRun } from './run.js';
