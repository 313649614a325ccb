// Starts a detector thread from the TypeScript sources (tests, `npm start` under tsx): registers
// tsx's loader in this thread, then loads the thread module named by workerData.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.script);
