/** Video probing lives in the platform: the job service probes uploads, the worker probes before sampling. */
export * from '@baret/platform/probe';
