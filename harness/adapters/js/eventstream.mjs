// A ConverseStream answer framed as Bedrock sends it (application/vnd.amazon.eventstream), for a shim's probe of its
// release: handed to the provider as the response of its own fetch (nothing is sent anywhere), it shows what the
// release makes of an event's members, where the API's shape cannot tell (bedrock-wire.md §4: prelude, headers,
// payload, each message closed by a CRC32).

import * as zlib from "node:zlib";

// CRC-32 (IEEE), zlib's where Node has it (20.15 and 22.2 on), else computed here for the Node 20 releases before.
const TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
export function tableCrc32(bytes) {
  let c = 0xffffffff;
  for (const byte of bytes) c = TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
const crc32 = zlib.crc32 ?? tableCrc32;

const uint = (bytes, value) => {
  const out = Buffer.alloc(bytes);
  if (bytes === 2) out.writeUInt16BE(value); else out.writeUInt32BE(value);
  return out;
};

// A header of string type (7): name length, name, type, value length, value.
function header(name, value) {
  const key = Buffer.from(name), text = Buffer.from(value);
  return Buffer.concat([Buffer.from([key.length]), key, Buffer.from([7]), uint(2, text.length), text]);
}

// One event message: `event` (its :event-type) with the JSON `payload`.
export function frame(event, payload) {
  const headers = Buffer.concat([header(":event-type", event), header(":content-type", "application/json"),
    header(":message-type", "event")]);
  const body = Buffer.from(JSON.stringify(payload));
  const prelude = Buffer.concat([uint(4, 12 + headers.length + body.length + 4), uint(4, headers.length)]);
  const message = Buffer.concat([prelude, uint(4, crc32(prelude)), headers, body]);
  return Buffer.concat([message, uint(4, crc32(message))]);
}

// A fetch answering every request with the events `[[event, payload], ...]` as one HTTP 200 stream.
export const answering = (events) => async () => new Response(
  Buffer.concat(events.map(([event, payload]) => frame(event, payload))),
  { status: 200, headers: { "content-type": "application/vnd.amazon.eventstream" } });
