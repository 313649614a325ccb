// Renders the hard-hat logo (public/icons/baret.svg) into the PNG icons the web app manifest and
// browsers ask for. Run after changing the logo: `node web/scripts/generate-icons.mjs`.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';

const dir = join(dirname(fileURLToPath(import.meta.url)), '../public/icons');
const svg = readFileSync(join(dir, 'baret.svg'));
const BG = '#1b2741';

async function icon(size, name, { padding = 0, flat = false } = {}) {
  const inner = Math.round(size * (1 - 2 * padding));
  let mark = sharp(svg, { density: Math.ceil((72 * inner) / 48) }).resize(inner, inner);
  // Maskable icons are cropped to a circle by the platform: a full-bleed background, the mark in the safe zone.
  const image = flat
    ? sharp({ create: { width: size, height: size, channels: 4, background: BG } }).composite([{ input: await mark.png().toBuffer(), gravity: 'center' }])
    : mark;
  await image.png({ compressionLevel: 9, palette: true }).toFile(join(dir, name));
  console.log(name);
}

await icon(192, 'icon-192.png');
await icon(512, 'icon-512.png');
await icon(512, 'icon-maskable-512.png', { padding: 0.1, flat: true });
await icon(180, 'apple-touch-icon.png', { padding: 0.06, flat: true });
await icon(32, 'favicon-32.png');
