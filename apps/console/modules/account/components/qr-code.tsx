import { encode } from "uqr";

/** A QR code drawn as SVG rectangles (no injected markup), for authenticator apps to scan. */
export function QrCode({ value, label }: { value: string; label: string }) {
  const { data, size } = encode(value, { ecc: "M", border: 2 });
  const cells: string[] = [];
  for (const [y, row] of data.entries()) {
    for (const [x, dark] of row.entries()) if (dark) cells.push(`M${x},${y}h1v1h-1z`);
  }
  return (
    <svg
      role="img"
      aria-label={label}
      viewBox={`0 0 ${size} ${size}`}
      className="size-44 rounded border bg-white"
      shapeRendering="crispEdges"
      data-testid="totp-qr"
    >
      <path d={cells.join("")} fill="#000" />
    </svg>
  );
}
