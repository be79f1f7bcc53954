/** One polyline of a chart. */
export interface Series {
  readonly name: string;
  readonly points: readonly (readonly [number, number])[];
}

export interface LineChart {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly series: readonly Series[];
}

const COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"];
const W = 520;
const H = 320;
const M = { left: 64, right: 16, top: 32, bottom: 48 };

const escapeXml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** Round ticks (1, 2, 5 × 10^k) covering [lo, hi]. */
function ticks(lo: number, hi: number, count = 5): number[] {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + 1e-9 * step; t += step) {
    out.push(Number(t.toPrecision(12)));
  }
  return out;
}

/** A small self-contained SVG line chart (no scripts, no external fonts): the bench's figures. */
export function lineChartSvg(chart: LineChart): string {
  const all = chart.series.flatMap((s) => s.points);
  const xs = all.map((p) => p[0]);
  const ys = all.map((p) => p[1]);
  let [x0, x1] = [Math.min(0, ...xs), Math.max(...xs)];
  let [y0, y1] = [Math.min(...ys), Math.max(...ys)];
  if (!(x1 > x0)) x1 = x0 + 1;
  if (!(y1 > y0)) [y0, y1] = [y0 - 1, y1 + 1];
  const pad = (y1 - y0) * 0.05;
  [y0, y1] = [y0 - pad, y1 + pad];
  const px = (x: number) => M.left + ((x - x0) / (x1 - x0)) * (W - M.left - M.right);
  const py = (y: number) => H - M.bottom - ((y - y0) / (y1 - y0)) * (H - M.top - M.bottom);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="11">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${W / 2}" y="18" text-anchor="middle" font-size="13">${escapeXml(chart.title)}</text>`,
    `<line x1="${M.left}" y1="${H - M.bottom}" x2="${W - M.right}" y2="${H - M.bottom}" stroke="black"/>`,
    `<line x1="${M.left}" y1="${M.top}" x2="${M.left}" y2="${H - M.bottom}" stroke="black"/>`,
  ];
  for (const t of ticks(x0, x1)) {
    parts.push(
      `<line x1="${px(t)}" y1="${H - M.bottom}" x2="${px(t)}" y2="${H - M.bottom + 4}" stroke="black"/>`,
      `<text x="${px(t)}" y="${H - M.bottom + 16}" text-anchor="middle">${t}</text>`,
    );
  }
  for (const t of ticks(y0, y1)) {
    parts.push(
      `<line x1="${M.left - 4}" y1="${py(t)}" x2="${M.left}" y2="${py(t)}" stroke="black"/>`,
      `<line x1="${M.left}" y1="${py(t)}" x2="${W - M.right}" y2="${py(t)}" stroke="#eee"/>`,
      `<text x="${M.left - 6}" y="${py(t) + 4}" text-anchor="end">${t}</text>`,
    );
  }
  parts.push(
    `<text x="${(M.left + W - M.right) / 2}" y="${H - 10}" text-anchor="middle">${escapeXml(chart.xLabel)}</text>`,
    `<text transform="translate(14 ${(M.top + H - M.bottom) / 2}) rotate(-90)" text-anchor="middle">${escapeXml(chart.yLabel)}</text>`,
  );
  chart.series.forEach((s, k) => {
    const colour = COLOURS[k % COLOURS.length]!;
    const path = s.points.map(([x, y]) => `${px(x).toFixed(1)},${py(y).toFixed(1)}`).join(" ");
    parts.push(`<polyline fill="none" stroke="${colour}" stroke-width="2" points="${path}"/>`);
    for (const [x, y] of s.points) {
      parts.push(
        `<circle cx="${px(x).toFixed(1)}" cy="${py(y).toFixed(1)}" r="2.5" fill="${colour}"/>`,
      );
    }
    const ly = M.top + 8 + 14 * k;
    parts.push(
      `<line x1="${W - M.right - 130}" y1="${ly}" x2="${W - M.right - 110}" y2="${ly}" stroke="${colour}" stroke-width="2"/>`,
      `<text x="${W - M.right - 104}" y="${ly + 4}">${escapeXml(s.name)}</text>`,
    );
  });
  parts.push("</svg>");
  return `${parts.join("\n")}\n`;
}
