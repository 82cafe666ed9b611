/**
 * The enrolment's QR code: the `otpauth://` URI drawn by `qrcode` as SVG and served inline as a
 * `data:` image (the page's CSP allows `img-src data:`; no script, no request elsewhere).
 */
import QRCode from "qrcode";

/** `qrcode` ships no types of its own; the one call used here. */
const qr = QRCode as unknown as {
  toString(
    text: string,
    options: { type: "svg"; errorCorrectionLevel: "M"; margin: number },
  ): Promise<string>;
};

export async function qrCodeDataUrl(text: string): Promise<string> {
  const svg = await qr.toString(text, { type: "svg", errorCorrectionLevel: "M", margin: 2 });
  return `data:image/svg+xml;base64,${btoa(svg)}`;
}
