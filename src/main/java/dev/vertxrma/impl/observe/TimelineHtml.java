package dev.vertxrma.impl.observe;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.impl.transport.FrameType;
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

  private static final String[] OP_NAMES = {"put", "get", "accumulate", "get_accumulate", "compare_and_swap"};
  private static final String[] OP_COLORS = {"#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#d62728"};
  private static final Map<String, String> EPOCH_COLORS = Map.of("fence", "#4e79a7", "access", "#59a14f",
      "exposure", "#a0cbe8", "lock", "#f28e2b", "lock_all", "#edc948");

  private TimelineHtml() {
  }

  /** Index of an operation kind in {@link #OP_NAMES}, from its frame type. */
  static int opIndex(int frameType) {
    switch (frameType) {
      case FrameType.PUT: return 0;
      case FrameType.GET: return 1;
      case FrameType.ACC: return 2;
      case FrameType.GET_ACC: return 3;
      default: return 4;
    }
  }

  private record Arrow(int origin, int target, int kind, long bytes, long t0, long t1, boolean failed, int win) {
  }

  private record Span(String kind, String text, long t0, long t1, int win, boolean failed) {
  }

  /** What one lane shows, worked out from a rank's events. */
  private static final class Lane {
    final List<Span> epochs = new ArrayList<>();
    final List<Span> waits = new ArrayList<>();
    final List<long[]> marks = new ArrayList<>(); // {time, type, win, extra}
    final List<Integer> windows = new ArrayList<>();
    final long[] ops = new long[OP_NAMES.length];
    long bytes;
    long epochCount;
    long lockWaits;
    long lockWaitNanos;
    long flushes;
    long errors;
  }

  static String render(TraceData data) {
    Map<Integer, TraceData.RankEvents> byRank = new TreeMap<>();
    for (TraceData.RankEvents r : data.ranks) {
      byRank.put(r.rank, r);
    }
    long t0 = Long.MAX_VALUE;
    long t1 = Long.MIN_VALUE;
    long events = 0;
    long dropped = 0;
    for (TraceData.RankEvents r : data.ranks) {
      events += r.size();
      dropped += r.dropped;
      for (int k = 0; k < r.size(); k++) {
        t0 = Math.min(t0, r.t[k]);
        t1 = Math.max(t1, r.type(k) == TraceRecorder.SYNC ? r.a[k] : r.t[k]);
      }
    }
    if (t0 == Long.MAX_VALUE) {
      t0 = 0;
      t1 = 0;
    }
    if (t1 <= t0) {
      t1 = t0 + 1_000_000;
    }
    List<Arrow> arrows = new ArrayList<>();
    Map<Integer, Lane> lanes = new HashMap<>();
    for (TraceData.RankEvents r : data.ranks) {
      lanes.put(r.rank, lane(r, arrows, t1));
    }
    arrows.sort(Comparator.comparingLong(Arrow::t0));

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
      Lane lane = lanes.get(r);
      if (lane == null) {
        continue;
      }
      int top = AXIS + r * laneHeight;
      int rows = Math.max(1, Math.min(3, lane.windows.size()));
      double rowHeight = 16.0 / rows;
      for (Span e : lane.epochs) {
        int row = Math.max(0, lane.windows.indexOf(e.win)) % rows;
        timed(s, "rect", e.t0, e.t1, origin, span, 2).append(" y=\"").append(fmt(top + 5 + row * rowHeight))
            .append("\" height=\"").append(fmt(rowHeight - 1)).append("\" fill=\"").append(EPOCH_COLORS.get(e.kind))
            .append("\" class=\"epoch\"><title>").append(esc(e.text)).append("</title></rect>\n");
      }
      for (Span w : lane.waits) {
        String cls = w.kind.startsWith("lock") && !w.kind.equals("lock_all_released") ? "lockwait"
            : w.kind.startsWith("flush") ? "flushwait" : "syncwait";
        if (w.failed) {
          cls += " failed";
        }
        timed(s, "rect", w.t0, w.t1, origin, span, 1).append(" y=\"").append(top + 24).append("\" height=\"")
            .append(Math.max(10, laneHeight / 2 - 20)).append("\" class=\"").append(cls).append("\"><title>")
            .append(esc(w.text)).append("</title></rect>\n");
      }
      for (long[] m : lane.marks) {
        mark(s, r, top, m, origin, span);
      }
    }
    int drawn = 0;
    for (Arrow a : arrows) {
      if (drawn++ >= MAX_ARROWS) {
        break;
      }
      int yFrom = center(AXIS + a.origin * laneHeight, laneHeight);
      int yTo = center(AXIS + a.target * laneHeight, laneHeight);
      String title = "rank " + a.origin + " \u2192 " + a.target + ": " + OP_NAMES[a.kind] + " " + a.bytes + " B"
          + " on win " + a.win + ", " + fmt((a.t1 - a.t0) / 1e6) + " ms" + (a.failed ? " (FAILED)" : "");
      if (a.origin == a.target) {
        // to itself: a loop below the lane's middle line
        timed(s, "rect", a.t0, a.t1, origin, span, 3).append(" y=\"").append(yFrom + 2).append("\" height=\"5\" rx=\"2\""
            + " fill=\"none\" stroke=\"").append(OP_COLORS[a.kind]).append("\" class=\"self\"><title>")
            .append(esc(title)).append("</title></rect>\n");
        continue;
      }
      timed(s, "line", a.t0, a.t1, origin, span, 0).append(" y1=\"").append(yFrom).append("\" y2=\"").append(yTo)
          .append("\" stroke=\"").append(OP_COLORS[a.kind]).append("\" marker-end=\"url(#ah").append(a.kind)
          .append(")\" class=\"op").append(a.failed ? " failed" : "").append("\"><title>").append(esc(title))
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

  private static void mark(StringBuilder s, int rank, int top, long[] m, long origin, double span) {
    double t = (m[0] - origin) / 1e6;
    double x = LEFT + t / span * PLOT_WIDTH;
    s.append("<g data-a=\"").append(fmt(t)).append("\" transform=\"translate(").append(fmt(x)).append(",0)\">");
    int type = (int) m[1];
    if (type == TraceRecorder.ERROR) {
      ErrorClass ec = ErrorClass.ofCode((int) m[3]);
      s.append("<path class=\"err\" d=\"M-5,").append(top + 3).append("L5,").append(top + 13).append("M5,").append(top + 3)
          .append("L-5,").append(top + 13).append("\"><title>rank ").append(rank).append(": a call on win ").append(m[2])
          .append(" failed with ").append(ec == null ? "error " + m[3] : ec.name()).append("</title></path>");
    } else {
      boolean created = type == TraceRecorder.WIN_CREATED;
      s.append("<path class=\"win\" d=\"").append(created ? "M0," + (top + 1) + "l6,0l-6,8z" : "M0," + (top + 1)
          + "l-6,0l6,8z").append("\"><title>rank ").append(rank).append(": window ").append(m[2])
          .append(created ? " created (" + TraceRecorder.FLAVORS[(int) m[3]] + ")" : " freed").append("</title></path>");
    }
    s.append("</g>\n");
  }

  private static Lane lane(TraceData.RankEvents r, List<Arrow> arrows, long end) {
    Lane lane = new Lane();
    Map<Long, Integer> issued = new HashMap<>();
    List<Integer> syncs = new ArrayList<>();
    Map<Integer, Long> freedAt = new HashMap<>();
    for (int k = 0; k < r.size(); k++) {
      int type = r.type(k);
      switch (type) {
        case TraceRecorder.OP:
          issued.put(opKey(r.win[k], r.peer[k], r.b[k]), k);
          lane.ops[opIndex(r.kind(k))]++;
          lane.bytes += r.a[k];
          break;
        case TraceRecorder.DONE: {
          Integer i = issued.remove(opKey(r.win[k], r.peer[k], r.b[k]));
          if (i != null) {
            arrows.add(new Arrow(r.rank, r.peer[i], opIndex(r.kind(i)), r.a[i], r.t[i], r.t[k], r.failed(k), r.win[i]));
          }
          break;
        }
        case TraceRecorder.SYNC:
          syncs.add(k);
          break;
        case TraceRecorder.WIN_CREATED:
          if (!lane.windows.contains(r.win[k])) {
            lane.windows.add(r.win[k]);
          }
          lane.marks.add(new long[] {r.t[k], type, r.win[k], r.kind(k)});
          break;
        case TraceRecorder.WIN_FREED:
          freedAt.put(r.win[k], r.t[k]);
          lane.marks.add(new long[] {r.t[k], type, r.win[k], 0});
          break;
        case TraceRecorder.ERROR:
          lane.errors++;
          lane.marks.add(new long[] {r.t[k], type, r.win[k], r.kind(k)});
          break;
        default:
          break;
      }
    }
    // operations still unanswered at the end: drawn up to the end, as failed
    for (Integer i : issued.values()) {
      arrows.add(new Arrow(r.rank, r.peer[i], opIndex(r.kind(i)), r.a[i], r.t[i], end, true, r.win[i]));
    }
    syncs.sort(Comparator.comparingLong(k -> r.t[k]));
    Sync[] kinds = Sync.values();
    // open epochs per window: kind -> (start, text); lock epochs keyed by target
    Map<String, long[]> open = new HashMap<>();
    Map<String, String> openText = new HashMap<>();
    for (int k : syncs) {
      Sync kind = kinds[r.kind(k)];
      int w = r.win[k];
      long start = r.t[k];
      long stop = r.a[k];
      String who = kind.isLock() || kind == Sync.UNLOCK || kind == Sync.FLUSH ? " of rank " + r.peer[k] : "";
      if (stop > start || kind.isLock() || kind.meter() == Sync.Meter.FLUSH) {
        lane.waits.add(new Span(kind.label(), kind.label() + who + " on win " + w + ": " + fmt((stop - start) / 1e6)
            + " ms" + (r.failed(k) ? " (FAILED)" : ""), start, stop, w, r.failed(k)));
      }
      if (kind.isLock()) {
        lane.lockWaits++;
        lane.lockWaitNanos += stop - start;
      }
      if (kind.meter() == Sync.Meter.FLUSH) {
        lane.flushes++;
      }
      // the epoch this call closes
      switch (kind) {
        case FENCE:
        case FENCE_END:
          close(lane, open, openText, w + "/fence", start);
          break;
        case COMPLETE:
          close(lane, open, openText, w + "/access", start);
          break;
        case WAIT:
          close(lane, open, openText, w + "/exposure", start);
          break;
        case POST:
          close(lane, open, openText, w + "/exposure", start); // a test() that returned true ended the last one
          break;
        case UNLOCK:
          close(lane, open, openText, w + "/lock/" + r.peer[k], start);
          break;
        case UNLOCK_ALL:
          close(lane, open, openText, w + "/lock_all", start);
          break;
        default:
          break;
      }
      // the epoch it opens, from its completion
      if (kind.opens() != null && !r.failed(k)) {
        String key = w + "/" + kind.opens() + (kind.opens().equals("lock") ? "/" + r.peer[k] : "");
        open.put(key, new long[] {stop, w});
        String text = kind.opens() + " epoch" + (kind.opens().equals("lock") ? " (" + (kind == Sync.LOCK_EXCLUSIVE
            ? "exclusive" : "shared") + ") on rank " + r.peer[k] : "") + ", win " + w;
        openText.put(key, text);
        lane.epochCount++;
      }
    }
    for (String key : new ArrayList<>(open.keySet())) {
      long w = open.get(key)[1];
      close(lane, open, openText, key, freedAt.getOrDefault((int) w, end));
    }
    return lane;
  }

  private static void close(Lane lane, Map<String, long[]> open, Map<String, String> text, String key, long at) {
    long[] o = open.remove(key);
    if (o != null) {
      String kind = key.split("/")[1];
      lane.epochs.add(new Span(kind, text.remove(key) + ": " + fmt((at - o[0]) / 1e6) + " ms", o[0], Math.max(o[0], at),
          (int) o[1], false));
    }
  }

  private static long opKey(int win, int target, long seq) {
    return ((long) win << 48) ^ ((long) target << 32) ^ seq;
  }

  private static void legend(StringBuilder s) {
    s.append("<div class=\"legend\">");
    s.append("<span class=\"lh\">operations (arrow origin \u2192 target, issue to completion):</span>");
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
        .append("<span><svg width=\"22\" height=\"10\"><rect width=\"22\" height=\"10\" class=\"flushwait\"/></svg>flush</span>")
        .append("<span><svg width=\"22\" height=\"10\"><rect width=\"22\" height=\"10\" class=\"syncwait\"/></svg>"
            + "fence, start, complete, wait, unlock</span>")
        .append("<span><svg width=\"14\" height=\"10\"><path class=\"err\" d=\"M2,0L12,10M12,0L2,10\"/></svg>error</span>")
        .append("<span><svg width=\"14\" height=\"10\"><path class=\"win\" d=\"M3,1l8,0l-8,8z\"/></svg>window created/freed</span>");
    s.append("</div>\n");
  }

  private static void totals(StringBuilder s, int np, Map<Integer, Lane> lanes, Map<Integer, TraceData.RankEvents> byRank) {
    s.append("<table><tr><th>rank</th>");
    for (String n : OP_NAMES) {
      s.append("<th>").append(n).append("</th>");
    }
    s.append("<th>bytes</th><th>epochs</th><th>lock waits</th><th>lock wait ms</th><th>flushes</th><th>errors</th>"
        + "<th>dropped</th></tr>\n");
    for (int r = 0; r < np; r++) {
      Lane l = lanes.get(r);
      s.append("<tr><td>").append(r).append("</td>");
      if (l == null) {
        s.append("<td colspan=\"").append(OP_NAMES.length + 7).append("\">no trace</td></tr>\n");
        continue;
      }
      for (long n : l.ops) {
        s.append("<td>").append(n).append("</td>");
      }
      s.append("<td>").append(l.bytes).append("</td><td>").append(l.epochCount).append("</td><td>").append(l.lockWaits)
          .append("</td><td>").append(fmt(l.lockWaitNanos / 1e6)).append("</td><td>").append(l.flushes).append("</td><td>")
          .append(l.errors).append("</td><td>").append(byRank.get(r).dropped).append("</td></tr>\n");
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
