package dev.vertxrma.impl.observe;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.impl.observe.RankTimeline.Call;
import dev.vertxrma.impl.observe.RankTimeline.Epoch;
import dev.vertxrma.impl.observe.RankTimeline.Mark;
import dev.vertxrma.impl.observe.RankTimeline.Op;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Renders a job's trace as one self-contained HTML page: an inline SVG timeline (ranks as lanes,
 * epochs as bars, operations as arrows from origin to target, synchronization waits shaded, lock
 * waits hatched red), a legend and a table of totals per rank; a few lines of JavaScript zoom
 * (wheel) and pan (drag) the time axis. No external resource: the file opens offline.
 */
final class TimelineHtml {

  private static final int LEFT = 120;
  private static final int PLOT_WIDTH = 1240;
  private static final int AXIS = 28;
  /** Operation arrows drawn at most; the rest are counted in the totals only. */
  static final int MAX_ARROWS = 40_000;

  private static final String[] OP_NAMES = RankTimeline.OP_NAMES;
  private static final String[] OP_COLORS = {"#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#d62728", "#8c564b",
      "#bcbd22", "#e377c2", "#7f7f7f", "#aec7e8", "#17becf"};
  private static final Map<String, String> EPOCH_COLORS = Map.of("fence", "#4e79a7", "access", "#59a14f",
      "exposure", "#a0cbe8", "lock", "#f28e2b", "lock_all", "#edc948");

  private TimelineHtml() {
  }

  static String render(TraceData data) {
    Map<Integer, TraceData.RankEvents> byRank = new TreeMap<>();
    for (TraceData.RankEvents r : data.ranks) {
      byRank.put(r.rank, r);
    }
    long events = 0;
    long dropped = 0;
    for (TraceData.RankEvents r : data.ranks) {
      events += r.size();
      dropped += r.dropped;
    }
    long[] bounds = RankTimeline.span(data);
    long t0 = bounds[0];
    long t1 = Math.max(bounds[1], t0 + (bounds[1] > t0 ? 0 : 1_000_000));
    List<Op> arrows = new ArrayList<>();
    Map<Integer, RankTimeline> lanes = new HashMap<>();
    for (TraceData.RankEvents r : data.ranks) {
      RankTimeline lane = RankTimeline.of(r, t1);
      lanes.put(r.rank, lane);
    }
    RankTimeline.matchMessages(lanes, t1);
    for (RankTimeline lane : lanes.values()) {
      arrows.addAll(lane.ops);
    }
    arrows.sort(Comparator.comparingLong(Op::t0));

    int np = data.np;
    int laneHeight = Math.max(48, Math.min(140, 620 / Math.max(1, np)));
    int height = AXIS + np * laneHeight + 8;
    double span = (t1 - t0) / 1e6; // ms
    long origin = t0;

    StringBuilder s = new StringBuilder(1 << 16);
    s.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>vertx-rma trace: ")
        .append(esc(data.job)).append("</title>\n<style>\n").append(CSS).append("</style></head><body>\n");
    s.append("<h1>vertx-rma timeline <span class=\"job\">").append(esc(data.job)).append("</span></h1>\n");
    s.append("<p class=\"sum\">").append(np).append(np == 1 ? " rank" : " ranks").append(", ")
        .append(fmt(span)).append(" ms from ").append(Instant.ofEpochMilli(t0 / 1_000_000)).append(", ")
        .append(events).append(" events recorded");
    if (dropped > 0) {
      s.append(", <b>").append(dropped).append(" earliest events dropped</b> (the ring of each rank is full: "
          + "-Drma.trace.events=N keeps more)");
    }
    if (arrows.size() > MAX_ARROWS) {
      s.append(", ").append(MAX_ARROWS).append(" of ").append(arrows.size()).append(" operations drawn");
    }
    List<Integer> missing = new ArrayList<>();
    for (int r = 0; r < np; r++) {
      if (!byRank.containsKey(r)) {
        missing.add(r);
      }
    }
    if (!missing.isEmpty()) {
      s.append(", <b>no trace from ranks ").append(missing).append("</b>");
    }
    s.append(". Wheel: zoom, drag: pan, double-click: whole job; hover for details.</p>\n");
    legend(s);

    s.append("<svg id=\"tl\" xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(LEFT + PLOT_WIDTH + 20)
        .append("\" height=\"").append(height).append("\" data-left=\"").append(LEFT).append("\" data-width=\"")
        .append(PLOT_WIDTH).append("\" data-span=\"").append(fmt(span)).append("\">\n<defs>\n");
    for (int i = 0; i < OP_NAMES.length; i++) {
      s.append("<marker id=\"ah").append(i).append("\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" "
          + "markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0L10,5L0,10z\" fill=\"")
          .append(OP_COLORS[i]).append("\"/></marker>\n");
    }
    s.append("<pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
        + "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#f6c4c4\"/>"
        + "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#d62728\" stroke-width=\"2.5\"/></pattern>\n");
    s.append("<clipPath id=\"plot\"><rect x=\"").append(LEFT).append("\" y=\"0\" width=\"").append(PLOT_WIDTH)
        .append("\" height=\"").append(height).append("\"/></clipPath>\n</defs>\n");
    s.append("<g id=\"axis\"></g>\n");

    // lanes: background, label
    for (int r = 0; r < np; r++) {
      int top = AXIS + r * laneHeight;
      s.append("<rect class=\"lane").append(r % 2).append("\" x=\"0\" y=\"").append(top).append("\" width=\"")
          .append(LEFT + PLOT_WIDTH + 20).append("\" height=\"").append(laneHeight).append("\"/>\n");
      s.append("<text class=\"rank\" x=\"8\" y=\"").append(top + laneHeight / 2 - 2).append("\">rank ").append(r)
          .append("</text>\n");
      TraceData.RankEvents re = byRank.get(r);
      s.append("<text class=\"where\" x=\"8\" y=\"").append(top + laneHeight / 2 + 12).append("\">")
          .append(re == null ? "no trace" : esc(re.label)).append("</text>\n");
      s.append("<line class=\"mid\" x1=\"").append(LEFT).append("\" x2=\"").append(LEFT + PLOT_WIDTH).append("\" y1=\"")
          .append(center(top, laneHeight)).append("\" y2=\"").append(center(top, laneHeight)).append("\"/>\n");
    }

    s.append("<g clip-path=\"url(#plot)\">\n");
    for (int r = 0; r < np; r++) {
      RankTimeline lane = lanes.get(r);
      if (lane == null) {
        continue;
      }
      int top = AXIS + r * laneHeight;
      int rows = Math.max(1, Math.min(3, lane.windows.size()));
      double rowHeight = 16.0 / rows;
      for (Epoch e : lane.epochs) {
        int row = Math.max(0, lane.windows.indexOf(e.win())) % rows;
        timed(s, "rect", e.t0(), e.t1(), origin, span, 2).append(" y=\"").append(fmt(top + 5 + row * rowHeight))
            .append("\" height=\"").append(fmt(rowHeight - 1)).append("\" fill=\"").append(EPOCH_COLORS.get(e.kind()))
            .append("\" class=\"epoch\"><title>").append(esc(epochText(e))).append("</title></rect>\n");
      }
      for (Call w : lane.calls) {
        if (w.t1() <= w.t0() && !w.kind().isLock() && w.kind().meter() != Sync.Meter.FLUSH) {
          continue; // a call that did not wait
        }
        String kind = w.kind().label();
        String cls = kind.startsWith("lock") ? "lockwait" : kind.startsWith("flush") ? "flushwait" : "syncwait";
        if (w.failed()) {
          cls += " failed";
        }
        String who = w.kind().isLock() || w.kind() == Sync.UNLOCK || w.kind() == Sync.FLUSH ? " of rank " + w.peer() : "";
        String text = kind + who + " on win " + w.win() + ": " + fmt((w.t1() - w.t0()) / 1e6) + " ms"
            + (w.failed() ? " (FAILED)" : "");
        timed(s, "rect", w.t0(), w.t1(), origin, span, 1).append(" y=\"").append(top + 24).append("\" height=\"")
            .append(Math.max(10, laneHeight / 2 - 20)).append("\" class=\"").append(cls).append("\"><title>")
            .append(esc(text)).append("</title></rect>\n");
      }
      for (RankTimeline.Collective c : lane.collectives) {
        String text = c.name() + (c.root() >= 0 ? " (root " + c.root() + ")" : "") + ": "
            + fmt((c.t1() - c.t0()) / 1e6) + " ms" + (c.failed() ? " (FAILED)" : "");
        timed(s, "rect", c.t0(), c.t1(), origin, span, 1).append(" y=\"").append(top + 24).append("\" height=\"")
            .append(Math.max(10, laneHeight / 2 - 20)).append("\" class=\"collwait").append(c.failed() ? " failed" : "")
            .append("\"><title>").append(esc(text)).append("</title></rect>\n");
      }
      for (Mark m : lane.marks) {
        mark(s, r, top, m, origin, span);
      }
    }
    int drawn = 0;
    for (Op a : arrows) {
      if (drawn++ >= MAX_ARROWS) {
        break;
      }
      int yFrom = center(AXIS + a.origin() * laneHeight, laneHeight);
      int yTo = center(AXIS + a.target() * laneHeight, laneHeight);
      boolean message = a.kind() == RankTimeline.MESSAGE;
      String title = "rank " + a.origin() + " \u2192 " + a.target() + ": " + OP_NAMES[a.kind()] + " " + a.bytes() + " B"
          + (message ? " with tag " : " on win ") + a.win() + ", " + fmt((a.t1() - a.t0()) / 1e6) + " ms"
          + (message ? (a.done() ? " to its receive" : " (not received in the trace)") : "")
          + (a.failed() ? " (FAILED)" : "");
      if (a.origin() == a.target()) {
        // to itself: a loop below the lane's middle line
        timed(s, "rect", a.t0(), a.t1(), origin, span, 3).append(" y=\"").append(yFrom + 2)
            .append("\" height=\"5\" rx=\"2\" fill=\"none\" stroke=\"").append(OP_COLORS[a.kind()])
            .append("\" class=\"self\"><title>").append(esc(title)).append("</title></rect>\n");
        continue;
      }
      timed(s, "line", a.t0(), a.t1(), origin, span, 0).append(" y1=\"").append(yFrom).append("\" y2=\"").append(yTo)
          .append("\" stroke=\"").append(OP_COLORS[a.kind()]).append("\" marker-end=\"url(#ah").append(a.kind())
          .append(")\" class=\"op").append(a.failed() ? " failed" : "").append("\"><title>").append(esc(title))
          .append("</title></line>\n");
    }
    s.append("</g>\n</svg>\n");
    totals(s, np, lanes, byRank);
    s.append("<script>\n").append(JS).append("</script>\n</body></html>\n");
    return s.toString();
  }

  private static int center(int top, int laneHeight) {
    return top + 24 + Math.max(10, laneHeight / 2 - 20) + (laneHeight - 24 - Math.max(10, laneHeight / 2 - 20)) / 2;
  }

  /** The start of an element placed in time: its x attributes now, its times for the zoom script. */
  private static StringBuilder timed(StringBuilder s, String tag, long a, long b, long origin, double span,
      int minWidth) {
    double ta = (a - origin) / 1e6;
    double tb = (b - origin) / 1e6;
    double xa = LEFT + ta / span * PLOT_WIDTH;
    double xb = LEFT + tb / span * PLOT_WIDTH;
    s.append('<').append(tag).append(" data-a=\"").append(fmt(ta)).append("\" data-b=\"").append(fmt(tb)).append('"');
    if (tag.equals("line")) {
      s.append(" x1=\"").append(fmt(xa)).append("\" x2=\"").append(fmt(xb)).append('"');
    } else {
      s.append(" data-min=\"").append(minWidth).append("\" x=\"").append(fmt(xa)).append("\" width=\"")
          .append(fmt(Math.max(minWidth, xb - xa))).append('"');
    }
    return s;
  }

  private static void mark(StringBuilder s, int rank, int top, Mark m, long origin, double span) {
    double t = (m.t() - origin) / 1e6;
    double x = LEFT + t / span * PLOT_WIDTH;
    s.append("<g data-a=\"").append(fmt(t)).append("\" transform=\"translate(").append(fmt(x)).append(",0)\">");
    if (m.type() == TraceRecorder.ERROR) {
      ErrorClass ec = ErrorClass.ofCode(m.extra());
      s.append("<path class=\"err\" d=\"M-5,").append(top + 3).append("L5,").append(top + 13).append("M5,").append(top + 3)
          .append("L-5,").append(top + 13).append("\"><title>rank ").append(rank).append(": a call on win ").append(m.win())
          .append(" failed with ").append(ec == null ? "error " + m.extra() : ec.name()).append("</title></path>");
    } else {
      boolean created = m.type() == TraceRecorder.WIN_CREATED;
      s.append("<path class=\"win\" d=\"").append(created ? "M0," + (top + 1) + "l6,0l-6,8z" : "M0," + (top + 1)
          + "l-6,0l6,8z").append("\"><title>rank ").append(rank).append(": window ").append(m.win())
          .append(created ? " created (" + TraceRecorder.FLAVORS[m.extra()] + ")" : " freed").append("</title></path>");
    }
    s.append("</g>\n");
  }

  private static void legend(StringBuilder s) {
    s.append("<div class=\"legend\">");
    s.append("<span class=\"lh\">operations (arrow origin \u2192 target, issue to completion; a send: to its "
        + "receive):</span>");
    for (int i = 0; i < OP_NAMES.length; i++) {
      s.append("<span><svg width=\"26\" height=\"10\"><line x1=\"1\" y1=\"5\" x2=\"25\" y2=\"5\" stroke=\"")
          .append(OP_COLORS[i]).append("\" stroke-width=\"2\"/></svg>").append(OP_NAMES[i]).append("</span>");
    }
    s.append("<br><span class=\"lh\">epochs (bars):</span>");
    for (String k : List.of("fence", "access", "exposure", "lock", "lock_all")) {
      s.append("<span><svg width=\"22\" height=\"10\"><rect width=\"22\" height=\"10\" fill=\"")
          .append(EPOCH_COLORS.get(k)).append("\"/></svg>").append(k).append("</span>");
    }
    s.append("<span class=\"lh\">waits (shaded):</span>")
        .append("<span><svg width=\"22\" height=\"10\"><rect width=\"22\" height=\"10\" class=\"lockwait\"/></svg>lock wait</span>")
        .append("<span><svg width=\"22\" height=\"10\"><rect width=\"22\" height=\"10\" class=\"collwait\"/></svg>collective</span>")
        .append("<span><svg width=\"22\" height=\"10\"><rect width=\"22\" height=\"10\" class=\"flushwait\"/></svg>flush</span>")
        .append("<span><svg width=\"22\" height=\"10\"><rect width=\"22\" height=\"10\" class=\"syncwait\"/></svg>"
            + "fence, start, complete, wait, unlock</span>")
        .append("<span><svg width=\"14\" height=\"10\"><path class=\"err\" d=\"M2,0L12,10M12,0L2,10\"/></svg>error</span>")
        .append("<span><svg width=\"14\" height=\"10\"><path class=\"win\" d=\"M3,1l8,0l-8,8z\"/></svg>window created/freed</span>");
    s.append("</div>\n");
  }

  /** What an epoch's bar says on hover. */
  private static String epochText(Epoch e) {
    String lock = e.kind().equals("lock") ? " (" + (e.exclusive() ? "exclusive" : "shared") + ") on rank " + e.peer() : "";
    return e.kind() + " epoch" + lock + ", win " + e.win() + ": " + fmt((e.t1() - e.t0()) / 1e6) + " ms";
  }

  private static void totals(StringBuilder s, int np, Map<Integer, RankTimeline> lanes,
      Map<Integer, TraceData.RankEvents> byRank) {
    s.append("<table><tr><th>rank</th>");
    for (int i = 0; i < RankTimeline.COUNTED_KINDS; i++) { // a notified operation counts as its plain kind
      s.append("<th>").append(OP_NAMES[i]).append("</th>");
    }
    s.append("<th>bytes</th><th>epochs</th><th>lock waits</th><th>lock wait ms</th><th>flushes</th><th>errors</th>"
        + "<th>dropped</th><th>messages sent</th><th>message bytes</th></tr>\n");
    for (int r = 0; r < np; r++) {
      RankTimeline l = lanes.get(r);
      s.append("<tr><td>").append(r).append("</td>");
      if (l == null) {
        s.append("<td colspan=\"").append(RankTimeline.COUNTED_KINDS + 9).append("\">no trace</td></tr>\n");
        continue;
      }
      for (long n : l.opCounts) {
        s.append("<td>").append(n).append("</td>");
      }
      s.append("<td>").append(l.bytes).append("</td><td>").append(l.epochCount).append("</td><td>").append(l.lockWaits)
          .append("</td><td>").append(fmt(l.lockWaitNanos / 1e6)).append("</td><td>").append(l.flushes).append("</td><td>")
          .append(l.errors).append("</td><td>").append(byRank.get(r).dropped).append("</td><td>").append(l.messages)
          .append("</td><td>").append(l.messageBytes).append("</td></tr>\n");
    }
    s.append("</table>\n");
  }

  static String fmt(double v) {
    if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      return Long.toString((long) v);
    }
    return String.format(Locale.ROOT, Math.abs(v) >= 100 ? "%.1f" : "%.3f", v).replaceAll("0+$", "")
        .replaceAll("\\.$", "");
  }

  static String esc(String text) {
    StringBuilder b = new StringBuilder(text.length());
    for (char c : text.toCharArray()) {
      switch (c) {
        case '<': b.append("&lt;"); break;
        case '>': b.append("&gt;"); break;
        case '&': b.append("&amp;"); break;
        case '"': b.append("&quot;"); break;
        default: b.append(c);
      }
    }
    return b.toString();
  }

  private static final String CSS = String.join("\n",
      "body{font:13px/1.35 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;margin:14px;color:#222;background:#fff}",
      "h1{font-size:18px;margin:0 0 4px}",
      "h1 .job{font-weight:normal;color:#555;font-family:monospace}",
      ".sum{margin:0 0 6px;color:#444}",
      ".legend{margin:0 0 8px;color:#333}",
      ".legend span{margin-right:12px;white-space:nowrap}",
      ".legend .lh{font-weight:600;margin-right:6px}",
      ".legend svg{vertical-align:middle;margin-right:4px}",
      "svg#tl{display:block;user-select:none;cursor:grab}",
      ".lane0{fill:#fafafa}.lane1{fill:#f0f3f7}",
      ".rank{font-weight:700;font-size:13px;fill:#222}",
      ".where{font-size:10px;fill:#777}",
      ".mid{stroke:#c8c8c8;stroke-dasharray:2 3}",
      ".epoch{opacity:.85}",
      ".lockwait{fill:url(#hatch);stroke:#d62728;stroke-width:.5}",
      ".flushwait{fill:#c5b0d5;opacity:.7}",
      ".syncwait{fill:#9aa3ad;opacity:.55}",
      ".collwait{fill:#6b8e23;opacity:.45}",
      ".failed{stroke:#d62728;stroke-dasharray:3 2}",
      ".op{stroke-width:1.3;opacity:.8}",
      ".op:hover,.self:hover{stroke-width:3;opacity:1}",
      ".err{stroke:#d62728;stroke-width:2.2;fill:none}",
      ".win{fill:#555}",
      ".tick{stroke:#ddd}",
      ".ticklabel{font-size:10px;fill:#555}",
      "table{border-collapse:collapse;margin-top:10px;font-size:12px}",
      "td,th{border:1px solid #ddd;padding:2px 7px;text-align:right}",
      "th{background:#f0f3f7}",
      "");

  /** Zoom (wheel) and pan (drag) of the time axis; redraws the ticks. */
  private static final String JS = String.join("\n",
      "(function(){",
      "const svg=document.getElementById('tl');",
      "const L=+svg.dataset.left,W=+svg.dataset.width,SPAN=+svg.dataset.span,H=+svg.getAttribute('height');",
      "const els=[...svg.querySelectorAll('[data-a]')];",
      "let v0=0,v1=SPAN;",
      "const X=t=>L+(t-v0)/(v1-v0)*W;",
      "function axis(){",
      " const g=document.getElementById('axis');g.innerHTML='';",
      " const raw=(v1-v0)/10,p=Math.pow(10,Math.floor(Math.log10(raw)));",
      " const step=[1,2,5,10].map(m=>m*p).find(s=>s>=raw)||raw;",
      " for(let t=Math.ceil(v0/step)*step;t<=v1+1e-9;t+=step){",
      "  const x=X(t),ns='http://www.w3.org/2000/svg';",
      "  const l=document.createElementNS(ns,'line');l.setAttribute('class','tick');",
      "  l.setAttribute('x1',x);l.setAttribute('x2',x);l.setAttribute('y1',22);l.setAttribute('y2',H);g.appendChild(l);",
      "  const s=document.createElementNS(ns,'text');s.setAttribute('class','ticklabel');s.setAttribute('x',x);",
      "  s.setAttribute('y',16);s.setAttribute('text-anchor','middle');",
      "  s.textContent=(step<0.001?(t*1000).toFixed(1)+' \\u00b5s':(+t.toFixed(6))+' ms');g.appendChild(s);",
      " }",
      "}",
      "function draw(){",
      " for(const e of els){const a=+e.dataset.a,b=e.dataset.b===undefined?a:+e.dataset.b;",
      "  if(e.tagName==='line'){e.setAttribute('x1',X(a));e.setAttribute('x2',X(b));}",
      "  else if(e.tagName==='rect'){const x=X(a);e.setAttribute('x',x);e.setAttribute('width',Math.max(+e.dataset.min||0,X(b)-x));}",
      "  else e.setAttribute('transform','translate('+X(a)+',0)');}",
      " axis();",
      "}",
      "svg.addEventListener('wheel',ev=>{ev.preventDefault();",
      " const r=svg.getBoundingClientRect(),t=v0+(ev.clientX-r.left-L)/W*(v1-v0),f=ev.deltaY>0?1.25:0.8;",
      " v0=t-(t-v0)*f;v1=t+(v1-t)*f;draw();},{passive:false});",
      "let drag=null;",
      "svg.addEventListener('mousedown',ev=>{drag={x:ev.clientX,v0,v1};svg.style.cursor='grabbing';});",
      "window.addEventListener('mousemove',ev=>{if(!drag)return;const d=(ev.clientX-drag.x)/W*(drag.v1-drag.v0);",
      " v0=drag.v0-d;v1=drag.v1-d;draw();});",
      "window.addEventListener('mouseup',()=>{drag=null;svg.style.cursor='grab';});",
      "svg.addEventListener('dblclick',()=>{v0=0;v1=SPAN;draw();});",
      "axis();",
      "})();",
      "");
}
