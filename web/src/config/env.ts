/**
 * Build-time settings, validated once at start.
 *   VITE_API_BASE          where the API lives (absolute http(s) address); default: see resolveApiBase
 *   VITE_DEMO_VIDEO_PATH   path of the landing page's demo video under the API base; default
 *                          /media/demo.mov; an empty value turns the demo video off
 */

export const LOCAL_API_PORT = '8080';
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

export interface PageLocation {
  protocol: string;
  hostname: string;
  port: string;
  origin: string;
}

function trimSlash(value: string): string {
  return value.replace(/\/+$/, '');
}

/**
 * The API base address: the override when given; otherwise the page origin, except that the
 * Vite dev server on a local host talks to the API on port 8080.
 */
export function resolveApiBase(location: PageLocation, override: string | undefined, devServer: boolean): string {
  const explicit = override?.trim();
  if (explicit) return trimSlash(explicit);
  if (devServer && LOCAL_HOSTS.has(location.hostname) && location.port !== LOCAL_API_PORT) {
    return `${location.protocol}//${location.hostname}:${LOCAL_API_PORT}`;
  }
  return trimSlash(location.origin);
}

/** Normalises a media path to start with one slash; blank means "not configured". */
export function normaliseMediaPath(path: string | undefined | null): string | null {
  const trimmed = path?.trim();
  if (!trimmed) return null;
  return `/${trimmed.replace(/^\/+/, '')}`;
}

/**
 * The server says in index.html whether the demo video exists (`<meta name="baret-demo-video"
 * content="/media/demo.mov">`, empty when it does not); null when it said nothing (dev server).
 */
export function demoVideoFromPage(doc: Pick<Document, 'querySelector'> | undefined): string | null | undefined {
  const meta = doc?.querySelector('meta[name="baret-demo-video"]');
  if (!meta) return undefined;
  return normaliseMediaPath(meta.getAttribute('content'));
}

function validate(): { apiBase: string; demoVideoPath: string | null; demoVideoEnabled: boolean } {
  const override = import.meta.env.VITE_API_BASE as string | undefined;
  if (override?.trim() && !/^https?:\/\/[^\s]+$/i.test(override.trim())) {
    throw new Error(`VITE_API_BASE must be an absolute http(s) address, got "${override}"`);
  }
  const rawVideo = import.meta.env.VITE_DEMO_VIDEO_PATH as string | undefined;
  const configured = normaliseMediaPath(rawVideo === undefined ? '/media/demo.mov' : rawVideo);
  const served = demoVideoFromPage(typeof document === 'undefined' ? undefined : document);
  return {
    apiBase: resolveApiBase(window.location, override, import.meta.env.DEV),
    // Switched off at build time, or absent on the server: no request for it at all.
    demoVideoPath: configured && served !== undefined ? served : configured,
    // Not switched off at build time (an installed app asks the server whether it is there now).
    demoVideoEnabled: configured !== null,
  };
}

export const env = validate();
