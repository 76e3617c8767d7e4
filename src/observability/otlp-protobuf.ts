import type { Attributes, AttributeValue, HrTime, SpanContext, SpanStatus } from '@opentelemetry/api';

/**
 * OTLP protobuf (opentelemetry/proto/trace/v1) written by hand, field for field in the order and
 * with the defaults of the SDK's own serializer (@opentelemetry/otlp-transformer's
 * `ProtobufTraceSerializer`): the same spans give the same bytes, which the tests check. The span
 * writer (span-writer.ts) encodes each span once, when it ends, into the batch it will be sent in.
 */

/** The value of each hex digit by its character code. */
const HEX = new Uint8Array(128);
for (let i = 0; i < 16; i++) {
  HEX['0123456789abcdef'.charCodeAt(i)] = i;
  HEX['0123456789ABCDEF'.charCodeAt(i)] = i;
}

/** A growable buffer with the protobuf wire primitives. */
export class ProtoWriter {
  buffer: Buffer;
  pos = 0;

  /** `start`: bytes left free at the front (room for a request's framing, `RequestFraming`). */
  constructor(
    size = 64 * 1024,
    readonly start = 0,
  ) {
    this.buffer = Buffer.allocUnsafe(Math.max(size, start + 1024));
    this.pos = start;
  }

  private ensure(more: number): void {
    if (this.pos + more <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.pos + more));
    this.buffer.copy(grown, 0, 0, this.pos);
    this.buffer = grown;
  }

  tag(field: number, wireType: number): void {
    this.varint(field * 8 + wireType);
  }

  /** A non-negative integer below 2^32 (tags, lengths, counts, enums). */
  varint(value: number): void {
    this.ensure(5);
    let v = value >>> 0;
    while (v > 127) {
      this.buffer[this.pos++] = (v & 127) | 128;
      v >>>= 7;
    }
    this.buffer[this.pos++] = v;
  }

  /** An int64 as protobuf writes it: two's complement, so a negative one takes ten bytes. */
  int64(value: number): void {
    if (value >= 0 && value <= 0xffffffff) {
      this.varint(value);
      return;
    }
    this.ensure(10);
    let v = BigInt.asUintN(64, BigInt(value));
    while (v > 127n) {
      this.buffer[this.pos++] = Number(v & 127n) | 128;
      v >>= 7n;
    }
    this.buffer[this.pos++] = Number(v);
  }

  fixed32(value: number): void {
    this.ensure(4);
    this.pos = this.buffer.writeUInt32LE(value >>> 0, this.pos);
  }

  /**
   * An `HrTime` ([seconds, nanoseconds]) as fixed64 nanoseconds since the epoch, in two 32-bit
   * halves: seconds times 1e9 is past 2^53, so seconds are split at bit 16 (the SDK's method).
   */
  time(time: HrTime): void {
    this.ensure(8);
    const low16 = (time[0] & 0xffff) * 1e9;
    const high = Math.floor(time[0] / 0x10000) * 1e9;
    const lowWord = (low16 >>> 0) + (high & 0xffff) * 0x10000 + time[1];
    this.buffer.writeUInt32LE(lowWord >>> 0, this.pos);
    this.buffer.writeUInt32LE(
      (Math.floor(low16 / 0x100000000) + Math.floor(high / 0x10000) + Math.floor(lowWord / 0x100000000)) >>>
        0,
      this.pos + 4,
    );
    this.pos += 8;
  }

  double(value: number): void {
    this.ensure(8);
    this.pos = this.buffer.writeDoubleLE(value, this.pos);
  }

  /** A string as UTF-8; a short one copied by hand while it is ASCII (cheaper than a native call). */
  string(value: string): void {
    const length = value.length;
    if (length < 128) {
      this.ensure(length + 1);
      const at = this.pos;
      let i = 0;
      for (; i < length; i++) {
        const code = value.charCodeAt(i);
        if (code > 127) break;
        this.buffer[at + 1 + i] = code;
      }
      if (i === length) {
        this.buffer[at] = length;
        this.pos = at + 1 + length;
        return;
      }
    }
    const bytes = Buffer.byteLength(value);
    this.varint(bytes);
    this.ensure(bytes);
    this.pos += this.buffer.write(value, this.pos, bytes, 'utf8');
  }

  /** Bytes given as lowercase or uppercase hex (ids): written as their raw bytes. */
  hex(value: string): void {
    const length = value.length >>> 1;
    this.ensure(length + 1);
    this.buffer[this.pos++] = length; // ids are 8 or 16 bytes
    for (let i = 0; i < length; i++)
      this.buffer[this.pos++] =
        (HEX[value.charCodeAt(2 * i)] as number) * 16 + (HEX[value.charCodeAt(2 * i + 1)] as number);
  }

  /** Bytes already in protobuf (spans written before), as they are. */
  raw(value: Uint8Array): void {
    this.ensure(value.length);
    this.buffer.set(value, this.pos);
    this.pos += value.length;
  }

  /**
   * Starts a nested message whose length is known only after it is written: one byte is kept for
   * the length, and `end` moves the body along when the length needs more.
   */
  begin(): number {
    this.ensure(1);
    return this.pos++;
  }

  end(lengthAt: number): void {
    const length = this.pos - lengthAt - 1;
    if (length < 128) {
      this.buffer[lengthAt] = length;
      return;
    }
    const size = varintSize(length);
    this.ensure(size - 1);
    this.buffer.copyWithin(lengthAt + size, lengthAt + 1, this.pos);
    this.pos += size - 1;
    let v = length;
    let at = lengthAt;
    while (v > 127) {
      this.buffer[at++] = (v & 127) | 128;
      v >>>= 7;
    }
    this.buffer[at] = v;
  }

  /** Emptied for reuse: back to its start. */
  reset(): void {
    this.pos = this.start;
  }
}

const varintSize = (value: number) => {
  let size = 1;
  for (let v = value >>> 7; v > 0; v >>>= 7) size++;
  return size;
};

function anyValue(w: ProtoWriter, value: unknown): void {
  if (typeof value === 'string') {
    w.tag(1, 2);
    w.string(value);
  } else if (typeof value === 'boolean') {
    w.tag(2, 0);
    w.varint(value ? 1 : 0);
  } else if (typeof value === 'number') {
    if (Number.isInteger(value) && value >= -(2 ** 63) && value < 2 ** 63) {
      w.tag(3, 0);
      w.int64(value);
    } else {
      w.tag(4, 1);
      w.double(value);
    }
  } else if (Array.isArray(value)) {
    w.tag(5, 2);
    const array = w.begin();
    for (const item of value) {
      w.tag(1, 2);
      const itemAt = w.begin();
      anyValue(w, item);
      w.end(itemAt);
    }
    w.end(array);
  }
}

/** Each attribute as a KeyValue in `field` (attribute values are strings, numbers, booleans and arrays of them). */
export function writeAttributes(w: ProtoWriter, attributes: Attributes, field: number): void {
  for (const key in attributes) {
    if (!Object.hasOwn(attributes, key)) continue;
    const value: AttributeValue | undefined = attributes[key];
    w.tag(field, 2);
    const keyValue = w.begin();
    w.tag(1, 2);
    w.string(key);
    w.tag(2, 2);
    const valueAt = w.begin();
    anyValue(w, value);
    w.end(valueAt);
    w.end(keyValue);
  }
}

/** OTLP span flags: the W3C trace flags, and whether the parent was remote (known, so said). */
const flagsOf = (traceFlags: number, isRemote: boolean | undefined) =>
  (traceFlags & 0xff) | 0x100 | (isRemote ? 0x200 : 0);

export interface SpanEventRecord {
  name: string;
  time: HrTime;
  attributes: Attributes;
  droppedAttributesCount: number;
}

export interface SpanLinkRecord {
  context: SpanContext;
  attributes?: Attributes;
  droppedAttributesCount?: number;
}

/** What a finished span is made of, as the writer keeps it. */
export interface SpanRecord {
  context: SpanContext;
  parent: SpanContext | undefined;
  name: string;
  kind: number;
  startTime: HrTime;
  endTime: HrTime;
  attributes: Attributes;
  droppedAttributesCount: number;
  events: SpanEventRecord[];
  droppedEventsCount: number;
  links: SpanLinkRecord[];
  droppedLinksCount: number;
  status: SpanStatus;
}

function writeEvent(w: ProtoWriter, event: SpanEventRecord): void {
  w.tag(1, 1);
  w.time(event.time);
  w.tag(2, 2);
  w.string(event.name);
  writeAttributes(w, event.attributes, 3);
  w.tag(4, 0);
  w.varint(event.droppedAttributesCount);
}

function writeLink(w: ProtoWriter, link: SpanLinkRecord): void {
  w.tag(1, 2);
  w.hex(link.context.traceId);
  w.tag(2, 2);
  w.hex(link.context.spanId);
  const traceState = link.context.traceState?.serialize();
  if (traceState) {
    w.tag(3, 2);
    w.string(traceState);
  }
  if (link.attributes) writeAttributes(w, link.attributes, 4);
  w.tag(5, 0);
  w.varint(link.droppedAttributesCount ?? 0);
  w.tag(6, 5);
  w.fixed32(flagsOf(link.context.traceFlags, link.context.isRemote));
}

function writeStatus(w: ProtoWriter, status: SpanStatus): void {
  if (status.message) {
    w.tag(2, 2);
    w.string(status.message);
  }
  w.tag(3, 0);
  w.varint(status.code);
}

/** `value` as the nested message of `field`, written by `write` (a named function: no closure per call). */
function nested<T>(w: ProtoWriter, field: number, write: (w: ProtoWriter, value: T) => void, value: T): void {
  w.tag(field, 2);
  const at = w.begin();
  write(w, value);
  w.end(at);
}

/** One span as a `ScopeSpans.spans` entry (field 2): tag, length and body. */
export function writeSpan(w: ProtoWriter, span: SpanRecord): void {
  w.tag(2, 2);
  const body = w.begin();
  w.tag(1, 2);
  w.hex(span.context.traceId);
  w.tag(2, 2);
  w.hex(span.context.spanId);
  const traceState = span.context.traceState?.serialize();
  if (traceState) {
    w.tag(3, 2);
    w.string(traceState);
  }
  if (span.parent) {
    w.tag(4, 2);
    w.hex(span.parent.spanId);
  }
  w.tag(5, 2);
  w.string(span.name);
  w.tag(6, 0);
  w.varint(span.kind + 1); // OTLP counts from UNSPECIFIED = 0, the API from INTERNAL = 0
  w.tag(7, 1);
  w.time(span.startTime);
  w.tag(8, 1);
  w.time(span.endTime);
  writeAttributes(w, span.attributes, 9);
  w.tag(10, 0);
  w.varint(span.droppedAttributesCount);
  for (const event of span.events) nested(w, 11, writeEvent, event);
  w.tag(12, 0);
  w.varint(span.droppedEventsCount);
  for (const link of span.links) nested(w, 13, writeLink, link);
  w.tag(14, 0);
  w.varint(span.droppedLinksCount);
  nested(w, 15, writeStatus, span.status);
  w.tag(16, 5);
  w.fixed32(flagsOf(span.context.traceFlags, span.parent?.isRemote));
  w.end(body);
}

export interface ExportScope {
  resource: { attributes: Attributes; schemaUrl?: string };
  scope: { name: string; version?: string; schemaUrl?: string };
}

/** A message's field of `tag` written on its own: tag, length, body. */
function field(tag: number, write: (w: ProtoWriter) => void): Buffer {
  const w = new ProtoWriter(1024);
  w.tag(tag, 2);
  const at = w.begin();
  write(w);
  w.end(at);
  return Buffer.from(w.buffer.subarray(0, w.pos));
}

/**
 * An ExportTraceServiceRequest around a batch of spans (`writeSpan`): one ResourceSpans with the
 * process's resource and one ScopeSpans with the tracer's scope, as the SDK groups them. The spans
 * are written into a `ProtoWriter` that starts `room` bytes in, and the framing is written around
 * them in place when the batch is sent: the request is a view of the writer's buffer, not a copy.
 */
export class RequestFraming {
  private readonly resource: Buffer;
  private readonly scope: Buffer;
  private readonly scopeSpansTail: Buffer;
  private readonly resourceSpansTail: Buffer;
  /** What to leave free before the first span: the framing's head at its longest. */
  readonly room: number;

  constructor({ resource, scope }: ExportScope) {
    this.resource = field(1, (w) => {
      writeAttributes(w, resource.attributes, 1);
      w.tag(2, 0);
      w.varint(0);
    });
    this.scope = field(1, (w) => {
      w.tag(1, 2);
      w.string(scope.name);
      if (scope.version) {
        w.tag(2, 2);
        w.string(scope.version);
      }
    });
    const schemaUrl = (url: string | undefined) => {
      const w = new ProtoWriter(256);
      if (url) {
        w.tag(3, 2);
        w.string(url);
      }
      return Buffer.from(w.buffer.subarray(0, w.pos));
    };
    this.scopeSpansTail = schemaUrl(scope.schemaUrl);
    this.resourceSpansTail = schemaUrl(resource.schemaUrl);
    this.room = 1 + 5 + this.resource.length + 1 + 5 + this.scope.length;
  }

  /** The request around the spans `w` holds (it must have started `room` bytes in). */
  frame(w: ProtoWriter): Buffer {
    const spans = w.pos - w.start;
    w.raw(this.scopeSpansTail);
    w.raw(this.resourceSpansTail);
    const scopeSpans = this.scope.length + spans + this.scopeSpansTail.length;
    const resourceSpans =
      this.resource.length + 1 + varintSize(scopeSpans) + scopeSpans + this.resourceSpansTail.length;
    const headLength =
      1 + varintSize(resourceSpans) + this.resource.length + 1 + varintSize(scopeSpans) + this.scope.length;
    const end = w.pos;
    const start = w.start - headLength;
    w.pos = start;
    w.tag(1, 2);
    w.varint(resourceSpans);
    w.raw(this.resource);
    w.tag(2, 2);
    w.varint(scopeSpans);
    w.raw(this.scope);
    w.pos = end;
    return w.buffer.subarray(start, end);
  }
}
