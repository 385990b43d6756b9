// The service's icon: three bars of a waterfall on the dashboard's accent blue. The page links the
// SVG inline (a data: URL, which the Content-Security-Policy's img-src allows), so it asks for no
// file; `/favicon.ico` answers the same picture as a 16 × 16 ICO for whatever asks the old way
// (the docs page, a browser's own guess), instead of a 404 on every page load.

/** Bars as [first column, last column] on rows 4–5, 7–8 and 10–11 of 16. */
const BARS: Array<[row: number, from: number, to: number]> = [
  [4, 3, 9],
  [7, 6, 12],
  [10, 4, 8],
];

export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0a58ca"/>' +
  BARS.map(([row, from, to]) => `<rect x="${from}" y="${row}" width="${to - from + 1}" height="2" fill="#fff"/>`).join('') +
  '</svg>';

/** A 16 × 16, 32-bit ICO (one BMP image): header, directory entry, bitmap header, pixels bottom-up, AND mask. */
function icoOf(): Buffer {
  const size = 16;
  const pixels = Buffer.alloc(size * size * 4);
  for (let y = 0; y < size; y += 1) {
    for (let x = 0; x < size; x += 1) {
      const corner = (x === 0 || x === size - 1) && (y === 0 || y === size - 1);
      const bar = BARS.some(([row, from, to]) => (y === row || y === row + 1) && x >= from && x <= to);
      const [b, g, r, a] = corner ? [0, 0, 0, 0] : bar ? [255, 255, 255, 255] : [0xca, 0x58, 0x0a, 255];
      // BMP rows run bottom-up.
      pixels.set([b, g, r, a], ((size - 1 - y) * size + x) * 4);
    }
  }
  const mask = Buffer.alloc(size * 4); // 1 bit a pixel, rows padded to 4 bytes; alpha decides
  const info = Buffer.alloc(40);
  info.writeUInt32LE(40, 0);
  info.writeInt32LE(size, 4);
  info.writeInt32LE(size * 2, 8); // the XOR image and the mask, stacked
  info.writeUInt16LE(1, 12);
  info.writeUInt16LE(32, 14);
  info.writeUInt32LE(pixels.length + mask.length, 20);
  const image = Buffer.concat([info, pixels, mask]);
  const header = Buffer.alloc(6 + 16);
  header.writeUInt16LE(1, 2); // type: icon
  header.writeUInt16LE(1, 4); // one image
  header.writeUInt8(size, 6);
  header.writeUInt8(size, 7);
  header.writeUInt16LE(1, 10); // colour planes
  header.writeUInt16LE(32, 12); // bits per pixel
  header.writeUInt32LE(image.length, 14);
  header.writeUInt32LE(header.length, 18);
  return Buffer.concat([header, image]);
}

export const FAVICON_ICO = icoOf();
