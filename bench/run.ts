/** `npm run bench`: every benchmark of the product, one after another. */
import { runAnalyzerBench } from './analyzer.js';

await runAnalyzerBench();
