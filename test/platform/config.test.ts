import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('configuration', () => {
  it('has working defaults for the embedded mode', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      databaseUrl: undefined,
      appEnv: 'sandbox',
      logLevel: 'info',
      seedDemo: true,
      publicBaseUrl: 'http://127.0.0.1:3000',
    });
    expect(config.dataDir).toMatch(/\/data$/);
  });

  it('defaults to production on PostgreSQL', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://localhost/db' }).appEnv).toBe('production');
    expect(loadConfig({ DATABASE_URL: 'postgres://localhost/db', APP_ENV: 'sandbox' }).appEnv).toBe(
      'sandbox',
    );
  });

  it('builds a usable public URL from wildcard and IPv6 listen addresses', () => {
    expect(loadConfig({ HOST: '0.0.0.0', PORT: '8080' }).publicBaseUrl).toBe('http://localhost:8080');
    expect(loadConfig({ HOST: '::' }).publicBaseUrl).toBe('http://localhost:3000');
    expect(loadConfig({ HOST: '::1' }).publicBaseUrl).toBe('http://[::1]:3000');
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://api.example.com/' }).publicBaseUrl).toBe(
      'https://api.example.com',
    );
  });

  it('bounds the heap growth at 20% by default; 0 leaves V8 its own factor; the rest is refused by name', () => {
    expect(loadConfig({}).heapGrowingPercent).toBe(20);
    expect(loadConfig({ HEAP_GROWING_PERCENT: '0' }).heapGrowingPercent).toBe(0);
    expect(() => loadConfig({ HEAP_GROWING_PERCENT: 'lots' })).toThrow(
      'Invalid configuration: HEAP_GROWING_PERCENT must be an integer, got "lots"',
    );
    expect(() => loadConfig({ HEAP_GROWING_PERCENT: '301' })).toThrow(
      'Invalid configuration: HEAP_GROWING_PERCENT must be between 0 and 300, got 301',
    );
  });

  it('traces nowhere by default; an OTLP endpoint means OTLP over HTTP, protobuf unless the protocol says JSON', () => {
    expect(loadConfig({}).tracesExporter).toBe('none');
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
    expect(loadConfig(endpoint).tracesExporter).toBe('otlp-protobuf');
    expect(loadConfig({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }).tracesExporter).toBe(
      'otlp-json',
    );
    expect(
      loadConfig({
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
      }).tracesExporter,
    ).toBe('otlp-protobuf');
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'console' }).tracesExporter).toBe('console');
    expect(loadConfig({ ...endpoint, OTEL_SDK_DISABLED: 'true' }).tracesExporter).toBe('none');
    expect(() => loadConfig({ ...endpoint, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' })).toThrow(
      'Invalid configuration: OTEL_EXPORTER_OTLP_TRACES_PROTOCOL must be "http/protobuf" (the default) or "http/json", OTLP over HTTP (this service ships no gRPC exporter), got "grpc"',
    );
  });

  it('runs the webhook worker in-process by default', () => {
    expect(loadConfig({})).toMatchObject({
      webhookWorker: true,
      webhookConcurrency: 64,
      webhookTenantConcurrency: 32,
      webhookReceiverConcurrency: 16,
      webhookReceiverBackoffAfter: 3,
      webhookReceiverBackoffMs: 30_000,
      webhookPollIntervalMs: 1_000,
      webhookCaFile: undefined,
    });
    expect(loadConfig({ WEBHOOK_WORKER: 'false', WEBHOOK_CA_FILE: 'ca.pem' })).toMatchObject({
      webhookWorker: false,
      webhookCaFile: expect.stringMatching(/\/ca\.pem$/),
    });
  });

  it('does not seed demo data on PostgreSQL unless asked', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://localhost/db' }).seedDemo).toBe(false);
    expect(loadConfig({ DATABASE_URL: 'postgres://localhost/db', SEED_DEMO: 'true' }).seedDemo).toBe(true);
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://x'],
    ['DATABASE_URL', 'not a url'],
    ['REDIS_URL', 'http://x'],
    ['APP_ENV', 'staging'],
    ['LOG_LEVEL', 'loud'],
    ['PUBLIC_BASE_URL', 'ftp://x'],
    ['SEED_DEMO', 'maybe'],
    ['WEBHOOK_WORKER', 'sometimes'],
    ['WEBHOOK_CONCURRENCY', '0'],
    ['WEBHOOK_POLL_INTERVAL_MS', '5'],
  ])('names the bad variable %s=%s', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^Invalid configuration: ${name} `));
  });
});
