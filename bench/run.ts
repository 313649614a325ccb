/** `npm run bench`: every benchmark of the product, one after another, printing figures and ratios. */
import { runAnalyzerBench } from './analyzer.js';
import { runComplianceBench } from './compliance.js';
import { runFirstLoadBench } from './first-load.js';
import { runFramesBench } from './frames.js';
import { runModesBench } from './modes.js';
import { runLatencyBench } from './latency.js';
import { runNotifyBench } from './notify.js';
import { runUploadBench } from './upload.js';
import { runVideoBench } from './videos.js';

await runFirstLoadBench();
await runFramesBench();
await runUploadBench();
await runLatencyBench();
await runNotifyBench();
await runComplianceBench();
await runAnalyzerBench();
await runVideoBench();
await runModesBench();
