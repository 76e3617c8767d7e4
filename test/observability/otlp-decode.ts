import type { Attributes, AttributeValue, HrTime, Link, SpanContext, SpanStatus } from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace-node';

// An OTLP ExportTraceServiceRequest read back from its protobuf bytes, field by field as
// opentelemetry/proto/trace/v1/trace.proto numbers them, into the SDK's ReadableSpan: what a
// collector would make of what we send, and what the SDK's own serializer can write again.

interface Field {
  number: number;
  wireType: number;
  /** varint and fixed64 as bigint, fixed32 as number, length-delimited as bytes. */
  value: bigint | number | Buffer;
}

function readVarint(bytes: Buffer, at: number): [bigint, number] {
  let value = 0n;
  let shift = 0n;
  for (;;) {
    const byte = bytes[at++];
    if (byte === undefined) throw new Error('truncated varint');
    value |= BigInt(byte & 127) << shift;
    if (byte < 128) return [value, at];
    shift += 7n;
  }
}

export function fields(bytes: Buffer): Field[] {
  const out: Field[] = [];
  let at = 0;
  while (at < bytes.length) {
    const [tag, next] = readVarint(bytes, at);
    at = next;
    const number = Number(tag >> 3n);
    const wireType = Number(tag & 7n);
    if (wireType === 0) {
      const [value, after] = readVarint(bytes, at);
      out.push({ number, wireType, value });
      at = after;
    } else if (wireType === 1) {
      out.push({ number, wireType, value: bytes.readBigUInt64LE(at) });
      at += 8;
    } else if (wireType === 5) {
      out.push({ number, wireType, value: bytes.readUInt32LE(at) });
      at += 4;
    } else if (wireType === 2) {
      const [length, after] = readVarint(bytes, at);
      const end = after + Number(length);
      if (end > bytes.length) throw new Error('length past the end');
      out.push({ number, wireType, value: bytes.subarray(after, end) });
      at = end;
    } else throw new Error(`wire type ${wireType}`);
  }
  return out;
}

const all = (message: Buffer, number: number) => fields(message).filter((f) => f.number === number);
const one = (message: Buffer, number: number) => all(message, number)[0]?.value;
const bytesOf = (message: Buffer, number: number) => one(message, number) as Buffer | undefined;
const textOf = (message: Buffer, number: number) => bytesOf(message, number)?.toString('utf8');
const countOf = (message: Buffer, number: number) =>
  Number((one(message, number) as bigint | undefined) ?? 0n);
const hexOf = (message: Buffer, number: number) => bytesOf(message, number)?.toString('hex');

function anyValue(message: Buffer): AttributeValue {
  const [field] = fields(message);
  if (!field) return undefined as unknown as AttributeValue;
  switch (field.number) {
    case 1:
      return (field.value as Buffer).toString('utf8');
    case 2:
      return field.value === 1n;
    case 3:
      return Number(BigInt.asIntN(64, field.value as bigint));
    case 4: {
      const raw = Buffer.alloc(8);
      raw.writeBigUInt64LE(field.value as bigint);
      return raw.readDoubleLE();
    }
    case 5:
      return all(field.value as Buffer, 1).map((item) => anyValue(item.value as Buffer)) as AttributeValue;
    default:
      throw new Error(`AnyValue field ${field.number}`);
  }
}

export function attributesOf(message: Buffer, number: number): Attributes {
  const attributes: Attributes = {};
  for (const kv of all(message, number)) {
    const body = kv.value as Buffer;
    attributes[textOf(body, 1) as string] = anyValue(bytesOf(body, 2) as Buffer);
  }
  return attributes;
}

const timeOf = (value: bigint): HrTime => [Number(value / 1_000_000_000n), Number(value % 1_000_000_000n)];

function contextOf(
  message: Buffer,
  traceField: number,
  spanField: number,
  stateField: number,
  flags: number,
) {
  const state = textOf(message, stateField);
  return {
    traceId: hexOf(message, traceField) as string,
    spanId: hexOf(message, spanField) as string,
    traceFlags: flags & 0xff,
    ...(state ? { traceState: new TraceState(state) } : {}),
  } satisfies SpanContext;
}

export interface DecodedExport {
  resource: { attributes: Attributes; schemaUrl?: string };
  scope: { name: string; version?: string };
  spans: ReadableSpan[];
}

function decodeSpan(
  body: Buffer,
  resource: DecodedExport['resource'],
  scope: DecodedExport['scope'],
): ReadableSpan {
  const flags = one(body, 16) as number;
  const ctx = contextOf(body, 1, 2, 3, flags);
  const parentId = hexOf(body, 4);
  const statusBody = bytesOf(body, 15) as Buffer;
  const statusMessage = textOf(statusBody, 2);
  const status: SpanStatus = {
    code: countOf(statusBody, 3),
    ...(statusMessage ? { message: statusMessage } : {}),
  };
  const events: TimedEvent[] = all(body, 11).map(({ value }) => ({
    time: timeOf(one(value as Buffer, 1) as bigint),
    name: textOf(value as Buffer, 2) as string,
    attributes: attributesOf(value as Buffer, 3),
    droppedAttributesCount: countOf(value as Buffer, 4),
  }));
  const links = all(body, 13).map(({ value }) => {
    const link = value as Buffer;
    const linkFlags = one(link, 6) as number;
    const attributes = attributesOf(link, 4);
    const dropped = countOf(link, 5);
    return {
      context: { ...contextOf(link, 1, 2, 3, linkFlags), isRemote: (linkFlags & 0x200) !== 0 },
      ...(Object.keys(attributes).length > 0 ? { attributes } : {}),
      ...(dropped > 0 ? { droppedAttributesCount: dropped } : {}),
    } as Link;
  });
  const startTime = timeOf(one(body, 7) as bigint);
  const endTime = timeOf(one(body, 8) as bigint);
  return {
    name: textOf(body, 5) as string,
    kind: countOf(body, 6) - 1,
    spanContext: () => ctx,
    ...(parentId
      ? {
          parentSpanContext: {
            traceId: ctx.traceId,
            spanId: parentId,
            traceFlags: ctx.traceFlags,
            isRemote: (flags & 0x200) !== 0,
          },
        }
      : {}),
    startTime,
    endTime,
    duration: [endTime[0] - startTime[0], endTime[1] - startTime[1]],
    status,
    attributes: attributesOf(body, 9),
    droppedAttributesCount: countOf(body, 10),
    events,
    droppedEventsCount: countOf(body, 12),
    links,
    droppedLinksCount: countOf(body, 14),
    ended: true,
    resource: resource as ReadableSpan['resource'],
    instrumentationScope: scope,
  };
}

/** One request of ours: one ResourceSpans with one ScopeSpans (what the span writer sends). */
export function decodeExport(request: Uint8Array): DecodedExport {
  const resourceSpans = all(Buffer.from(request), 1);
  if (resourceSpans.length !== 1) throw new Error(`${resourceSpans.length} ResourceSpans`);
  const rs = resourceSpans[0]?.value as Buffer;
  const resourceBody = bytesOf(rs, 1) as Buffer;
  const resourceSchema = textOf(rs, 3);
  const resource = {
    attributes: attributesOf(resourceBody, 1),
    ...(resourceSchema ? { schemaUrl: resourceSchema } : {}),
  };
  const scopeSpans = all(rs, 2);
  if (scopeSpans.length !== 1) throw new Error(`${scopeSpans.length} ScopeSpans`);
  const ss = scopeSpans[0]?.value as Buffer;
  const scopeBody = bytesOf(ss, 1) as Buffer;
  const version = textOf(scopeBody, 2);
  const scope = { name: textOf(scopeBody, 1) as string, ...(version ? { version } : {}) };
  const spans = all(ss, 2).map(({ value }) => decodeSpan(value as Buffer, resource, scope));
  return { resource, scope, spans };
}
