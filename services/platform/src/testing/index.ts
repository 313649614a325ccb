/** Contract suites: run any adapter of a port through the same guarantees. */
export * from './contracts/documentStore.contract.js';
export * from './contracts/eventStore.contract.js';
export * from './contracts/messageBus.contract.js';
export * from './contracts/objectStore.contract.js';
export * from './deciderSpec.js';
export * from './engines/common.js';
export * from './engines/ports.js';
export * from './engines/postgres.js';
export * from './engines/minio.js';
export * from './engines/ferretdb.js';
export * from './engines/kafka.js';
export * from './engines/dex.js';
export * from './verbatim.js';
