/**
 * `npx tsx scripts/icons.ts`: renders public/favicon.svg into the PNG app icons and the
 * favicon.ico (a PNG inside an ICO container) with Debian's Chromium, so every size comes from the
 * one drawing and nothing is downloaded.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { chromium } from "@playwright/test";

const PUBLIC = path.resolve(import.meta.dirname, "../public");
const svg = readFileSync(path.join(PUBLIC, "favicon.svg"), "utf8");

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu"],
});
const page = await browser.newPage();

async function png(size: number): Promise<Buffer> {
  await page.setViewportSize({ width: size, height: size });
  await page.setContent(
    `<html><body style="margin:0;background:transparent">` +
      svg.replace("<svg ", `<svg width="${size}" height="${size}" `) +
      "</body></html>",
  );
  return page.screenshot({ omitBackground: true });
}

/** An ICO file holding one PNG image (supported by every current browser). */
function ico(image: Buffer, size: number): Buffer {
  const header = Buffer.alloc(6 + 16);
  header.writeUInt16LE(0, 0); // reserved
  header.writeUInt16LE(1, 2); // type: icon
  header.writeUInt16LE(1, 4); // one image
  header.writeUInt8(size, 6);
  header.writeUInt8(size, 7);
  header.writeUInt8(0, 8); // no palette
  header.writeUInt8(0, 9);
  header.writeUInt16LE(1, 10); // colour planes
  header.writeUInt16LE(32, 12); // bits per pixel
  header.writeUInt32LE(image.length, 14);
  header.writeUInt32LE(header.length, 18);
  return Buffer.concat([header, image]);
}

writeFileSync(path.join(PUBLIC, "favicon.ico"), ico(await png(32), 32));
writeFileSync(path.join(PUBLIC, "apple-touch-icon.png"), await png(180));
writeFileSync(path.join(PUBLIC, "icon-192.png"), await png(192));
writeFileSync(path.join(PUBLIC, "icon-512.png"), await png(512));
await browser.close();
