/** Task and equipment catalogues: reviewed data with sources (see SOURCES.md). */
export * from './catalog.js';
