import { describe, expect, it } from 'vitest';
import { telemetryWanted } from '@baret/platform';

describe('when traces are exported', () => {
  it('only when an OTLP endpoint or an exporter is named, and the SDK is not disabled', () => {
    expect(telemetryWanted({})).toBe(false);
    expect(telemetryWanted({ OTEL_SERVICE_NAME: 'x' })).toBe(false);
    expect(telemetryWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(telemetryWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(telemetryWanted({ OTEL_TRACES_EXPORTER: 'console' })).toBe(true);
    expect(telemetryWanted({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(false);
    expect(telemetryWanted({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(false);
    expect(telemetryWanted({ OTEL_SDK_DISABLED: 'false', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(telemetryWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBe(false);
  });
});
