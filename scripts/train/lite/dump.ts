/** `npx tsx scripts/train/lite/dump.ts`: writes the head crops of crops.ts alone (the first step of `npm run train`). */
import { listTrainingPhotos } from '../data.js';
import { sizeOf } from '../detect.js';
import { dumpLiteCrops } from './crops.js';

const meta = await dumpLiteCrops(await listTrainingPhotos(sizeOf), 11, (s) => process.stderr.write(s));
console.log(`${meta.head.length} head crops`);
