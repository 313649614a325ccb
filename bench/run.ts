/** `npm run bench`: every benchmark of the product, one after another. */
import { runAnalyzerBench } from './analyzer.js';
import { runFramesBench } from './frames.js';

await runAnalyzerBench();
await runFramesBench();
