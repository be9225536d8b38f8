// Marks drawn on a uPlot chart: a dashed line at each event (a shaded band for a span, such as
// a proof run), drawn on the canvas after the series so it is part of the plot, and a small
// marker above the plot for each that shows the event's details on hover or focus. Imperative,
// as uPlot is: the chart calls the plugin's hooks on every redraw, and the markers follow
// zooms, resizes and new data without React re-rendering the chart.
import type uPlot from "uplot";
import type { Annotation, AnnotationTone } from "../types/annotation";

/** One colour per tone, apart from every series colour (chart-palette.ts) so a mark is never read as data. */
export const toneColours: Record<AnnotationTone, string> = {
  policy: "#c026d3",
  failure: "#be123c",
  alert: "#d97706",
  resolved: "#059669",
  proof: "#0d9488",
  agent: "#475569",
};

const MARKER_SIZE = 10;

function formatWhen(iso: string): string {
  return new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });
}

function tooltipFor(annotation: Annotation, showHost: boolean): HTMLElement {
  const tip = document.createElement("div");
  tip.setAttribute("role", "tooltip");
  tip.dataset.testid = "annotation-tooltip";
  tip.className =
    "pointer-events-none absolute z-20 w-72 rounded-md border bg-popover p-2 text-left text-xs text-popover-foreground shadow-lg";
  const title = document.createElement("div");
  title.className = "font-semibold";
  title.style.color = toneColours[annotation.tone];
  title.textContent = annotation.title;
  const when = document.createElement("div");
  when.className = "text-muted-foreground";
  when.textContent = `${showHost ? `${annotation.hostname} · ` : ""}${formatWhen(annotation.at)}${annotation.endAt ? ` → ${formatWhen(annotation.endAt)}` : ""}`;
  const detail = document.createElement("div");
  detail.className = "mt-1";
  detail.textContent = annotation.detail;
  tip.append(title, when, detail);
  return tip;
}

/**
 * The plugin for one chart. `current` is read on every draw, so new annotations only need a
 * redraw. `showHost` names the server in each tooltip (the comparison of several servers).
 */
export function annotationsPlugin(current: () => readonly Annotation[], showHost: () => boolean): uPlot.Plugin {
  let layer: HTMLDivElement | null = null;

  const inView = (u: uPlot, a: Annotation) => {
    const min = u.scales.x!.min!;
    const max = u.scales.x!.max!;
    const start = Date.parse(a.at) / 1000;
    const end = a.endAt ? Date.parse(a.endAt) / 1000 : start;
    return end >= min && start <= max;
  };

  return {
    hooks: {
      init: (u) => {
        layer = document.createElement("div");
        layer.className = "absolute inset-x-0";
        layer.style.top = `${-MARKER_SIZE - 2}px`;
        layer.dataset.testid = "annotation-layer";
        u.over.appendChild(layer);
        u.over.style.overflow = "visible";
      },
      // After the series: the marks sit on top of the lines they explain.
      draw: (u) => {
        const { ctx } = u;
        const { left, top, width, height } = u.bbox;
        const ratio = window.devicePixelRatio || 1;
        ctx.save();
        ctx.beginPath();
        ctx.rect(left, top, width, height);
        ctx.clip();
        for (const a of current()) {
          if (!inView(u, a)) continue;
          const colour = toneColours[a.tone];
          const x0 = Math.round(u.valToPos(Date.parse(a.at) / 1000, "x", true));
          if (a.endAt) {
            const x1 = Math.round(u.valToPos(Date.parse(a.endAt) / 1000, "x", true));
            ctx.fillStyle = `${colour}1f`;
            ctx.fillRect(x0, top, Math.max(1, x1 - x0), height);
          }
          ctx.strokeStyle = colour;
          ctx.lineWidth = 2 * ratio;
          ctx.setLineDash([5 * ratio, 3 * ratio]);
          ctx.beginPath();
          ctx.moveTo(x0, top);
          ctx.lineTo(x0, top + height);
          ctx.stroke();
        }
        ctx.restore();
        if (!layer) return;
        layer.replaceChildren();
        for (const a of current()) {
          if (!inView(u, a)) continue;
          const x = Math.max(0, u.valToPos(Date.parse(a.at) / 1000, "x"));
          const marker = document.createElement("button");
          marker.type = "button";
          marker.dataset.testid = "annotation";
          marker.dataset.kind = a.kind;
          marker.dataset.at = a.at;
          marker.dataset.serverId = a.serverId;
          // Where its line is on the canvas, in device pixels, for a test reading the plot.
          marker.dataset.canvasX = String(Math.round(u.valToPos(Date.parse(a.at) / 1000, "x", true)));
          marker.setAttribute("aria-label", `${a.title}, ${formatWhen(a.at)}`);
          marker.className =
            "absolute -translate-x-1/2 rotate-45 rounded-[2px] border border-white shadow focus:outline-none focus-visible:ring-2 focus-visible:ring-ring";
          Object.assign(marker.style, {
            left: `${x}px`,
            top: "0px",
            width: `${MARKER_SIZE}px`,
            height: `${MARKER_SIZE}px`,
            background: toneColours[a.tone],
          });
          let tip: HTMLElement | null = null;
          const show = () => {
            tip ??= tooltipFor(a, showHost());
            const right = x > u.over.clientWidth / 2;
            Object.assign(tip.style, right ? { right: `${u.over.clientWidth - x + 8}px` } : { left: `${x + 8}px` }, {
              top: `${MARKER_SIZE + 4}px`,
            });
            layer?.appendChild(tip);
          };
          const hide = () => tip?.remove();
          marker.addEventListener("mouseenter", show);
          marker.addEventListener("focus", show);
          marker.addEventListener("mouseleave", hide);
          marker.addEventListener("blur", hide);
          // A press on a marker is not the start of a zoom.
          marker.addEventListener("mousedown", (event) => event.stopPropagation());
          marker.addEventListener("click", () => {
            if (a.href) window.location.assign(a.href);
          });
          layer.appendChild(marker);
        }
      },
    },
  };
}
