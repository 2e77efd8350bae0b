import { crc32, deflateSync } from 'node:zlib';

// Real, tiny images of the four common web types, made here byte by byte so the suite needs no image files and no
// network: each is a valid file any decoder reads (a flat grey picture of the asked size).

export type ImageKind = 'png' | 'jpg' | 'gif' | 'webp';

export const MIME_TYPES: Record<ImageKind, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};

export function imageBytes(kind: ImageKind, width: number, height: number): Buffer {
  return { png: pngBytes, jpg: jpegBytes, gif: gifBytes, webp: webpBytes }[kind](width, height);
}

const u16le = (value: number) => Buffer.from([value & 0xff, value >> 8]);
const u16be = (value: number) => Buffer.from([value >> 8, value & 0xff]);
const u32be = (value: number) => Buffer.from([value >>> 24, (value >> 16) & 0xff, (value >> 8) & 0xff, value & 0xff]);
const u32le = (value: number) => Buffer.from([value & 0xff, (value >> 8) & 0xff, (value >> 16) & 0xff, value >>> 24]);

/** PNG: 8-bit RGB, one unfiltered row of grey per line, deflated. */
function pngBytes(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const typed = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    return Buffer.concat([u32be(data.length), typed, u32be(crc32(typed))]);
  };
  const header = Buffer.concat([u32be(width), u32be(height), Buffer.from([8, 2, 0, 0, 0])]);
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3, 0x80)]);
  const pixels = deflateSync(Buffer.concat(Array.from({ length: height }, () => row)));
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', header),
    chunk('IDAT', pixels),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * Baseline grayscale JPEG whose Huffman tables hold one code each (DC difference 0, end of block), so every 8×8 block
 * is the two bits `00`: a mid-grey picture.
 */
function jpegBytes(width: number, height: number): Buffer {
  const segment = (marker: number, data: Buffer) =>
    Buffer.concat([Buffer.from([0xff, marker]), u16be(data.length + 2), data]);
  const oneCodeTable = (tableClass: number) =>
    Buffer.concat([Buffer.from([tableClass << 4]), Buffer.from([1, ...new Array(15).fill(0)]), Buffer.from([0])]);
  const blocks = Math.ceil(width / 8) * Math.ceil(height / 8);
  const scan = Buffer.alloc(Math.ceil((blocks * 2) / 8), 0);
  const usedBits = (blocks * 2) % 8;
  if (usedBits) scan[scan.length - 1] = (1 << (8 - usedBits)) - 1; // padding bits are ones
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    segment(0xdb, Buffer.concat([Buffer.from([0]), Buffer.alloc(64, 1)])),
    segment(0xc0, Buffer.concat([Buffer.from([8]), u16be(height), u16be(width), Buffer.from([1, 1, 0x11, 0])])),
    segment(0xc4, oneCodeTable(0)),
    segment(0xc4, oneCodeTable(1)),
    segment(0xda, Buffer.from([1, 1, 0x00, 0, 63, 0])),
    scan,
    Buffer.from([0xff, 0xd9]),
  ]);
}

/** Bits written least significant first, as GIF's LZW codes and WebP's lossless stream want them. */
class BitWriter {
  private readonly bytes: number[] = [];
  private bit = 0;

  write(value: number, count: number): this {
    for (let i = 0; i < count; i++) {
      if (this.bit % 8 === 0) this.bytes.push(0);
      if ((value >> i) & 1) this.bytes[this.bytes.length - 1]! |= 1 << (this.bit % 8);
      this.bit++;
    }
    return this;
  }

  toBuffer(): Buffer {
    return Buffer.from(this.bytes);
  }
}

/** GIF89a with a two-colour palette; LZW codes of 3 bits, the table cleared every two pixels so they stay 3 bits. */
function gifBytes(width: number, height: number): Buffer {
  const clear = 4;
  const end = 5;
  const codes = new BitWriter();
  for (let pixel = 0; pixel < width * height; pixel += 2) {
    codes.write(clear, 3).write(0, 3);
    if (pixel + 1 < width * height) codes.write(0, 3);
  }
  const data = codes.write(end, 3).toBuffer();
  const blocks: Buffer[] = [];
  for (let from = 0; from < data.length; from += 255) {
    const block = data.subarray(from, from + 255);
    blocks.push(Buffer.from([block.length]), block);
  }
  return Buffer.concat([
    Buffer.from('GIF89a', 'ascii'),
    u16le(width),
    u16le(height),
    Buffer.from([0x80, 0, 0]),
    Buffer.from([0x80, 0x80, 0x80, 0xff, 0xff, 0xff]),
    Buffer.from([0x2c]),
    u16le(0),
    u16le(0),
    u16le(width),
    u16le(height),
    Buffer.from([0]),
    Buffer.from([2]),
    ...blocks,
    Buffer.from([0]),
    Buffer.from([0x3b]),
  ]);
}

/**
 * Lossless WebP (VP8L): no transforms, no colour cache, five prefix codes of one symbol each (grey, opaque), so
 * every pixel takes no bits at all.
 */
function webpBytes(width: number, height: number): Buffer {
  const bits = new BitWriter()
    .write(0x2f, 8)
    .write(width - 1, 14)
    .write(height - 1, 14)
    .write(0, 1)
    .write(0, 3);
  bits.write(0, 1).write(0, 1).write(0, 1); // no transform, no colour cache, no meta prefix codes
  for (const symbol of [0x80, 0x80, 0x80, 0xff]) bits.write(1, 1).write(0, 1).write(1, 1).write(symbol, 8); // green, red, blue, alpha
  bits.write(1, 1).write(0, 1).write(0, 1).write(0, 1); // distance: symbol 0
  const stream = bits.toBuffer();
  const padded = stream.length % 2 ? Buffer.concat([stream, Buffer.from([0])]) : stream;
  const chunk = Buffer.concat([Buffer.from('VP8L', 'ascii'), u32le(stream.length), padded]);
  return Buffer.concat([Buffer.from('RIFF', 'ascii'), u32le(4 + chunk.length), Buffer.from('WEBP', 'ascii'), chunk]);
}
