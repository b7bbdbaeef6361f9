// A session's series as the server sends them (SeriesEncoding): little-endian columns after a JSON header.
export function parseSeries(buffer) {
  const bytes = new Uint8Array(buffer);
  const magic = String.fromCharCode(...bytes.slice(0, 4));
  if (magic !== "GZRV") throw new Error("not a gazerec series document");
  const length = new DataView(buffer).getUint32(4, true);
  const header = JSON.parse(new TextDecoder().decode(bytes.slice(8, 8 + length)));
  const columns = {};
  for (const c of header.columns) {
    columns[c.name] = c.type === "f64" ? new Float64Array(buffer, c.offset, c.count) : new Float32Array(buffer, c.offset, c.count);
  }
  return { begin: header.begin, screen: header.screen, markers: header.markers, columns };
}

// The index of the last time <= t in sorted `times` (-1 when t is before them all).
export function indexAt(times, t) {
  let lo = 0, hi = times.length - 1, found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (times[mid] <= t) { found = mid; lo = mid + 1; } else { hi = mid - 1; }
  }
  return found;
}

// The span of a series' times, in seconds since the session's begin.
export function sessionEnd(series) {
  const c = series.columns;
  let end = 0;
  for (const name of ["gaze.t", "frame.t", "expr.t"]) {
    const t = c[name];
    if (t && t.length) end = Math.max(end, t[t.length - 1]);
  }
  return end;
}

// Linear interpolation of one AOI's shape at stimulus time t, as the library moves keyframes
// (AreaOfInterest.shape(at:)): nil outside its first and last keyframe, each number moved linearly.
export function shapeAt(area, t) {
  const k = area.keyframes;
  if (!area.keyframed) return k[0].shape;
  if (t < k[0].t || t > k[k.length - 1].t) return null;
  for (let i = 0; i < k.length - 1; i++) {
    if (t >= k[i].t && t <= k[i + 1].t) {
      const a = k[i].shape, b = k[i + 1].shape, span = k[i + 1].t - k[i].t;
      const f = span > 0 ? (t - k[i].t) / span : 0;
      if (a.kind !== b.kind || (a.kind === "polygon" && a.points.length !== b.points.length)) return a;
      const mix = (x, y) => x + (y - x) * f;
      if (a.kind === "polygon") return { kind: "polygon", points: a.points.map((p, j) => [mix(p[0], b.points[j][0]), mix(p[1], b.points[j][1])]) };
      return { kind: a.kind, v: a.v.map((x, j) => mix(x, b.v[j])) };
    }
  }
  return k[k.length - 1].shape;
}

// The AOI document `gazerec stimulus aoi --aois` reads (AOIDocument), numbers in stimulus pixels.
export function aoiDocument(areas) {
  const shapeMembers = s => s.kind === "polygon" ? { polygon: s.points.map(p => [round(p[0]), round(p[1])]) }
    : { [s.kind]: s.v.map(round) };
  return areas.map(a => a.keyframed
    ? { name: a.name, keyframes: a.keyframes.map(k => ({ t: round(k.t), ...shapeMembers(k.shape) })) }
    : { name: a.name, ...shapeMembers(a.keyframes[0].shape) });
}

// Areas from an AOI document.
export function areasFromDocument(doc) {
  const shape = m => m.polygon ? { kind: "polygon", points: m.polygon } : m.rect ? { kind: "rect", v: m.rect } : { kind: "ellipse", v: m.ellipse };
  return doc.map(a => a.keyframes
    ? { name: a.name, keyframed: true, keyframes: a.keyframes.map(k => ({ t: k.t, shape: shape(k) })) }
    : { name: a.name, keyframed: false, keyframes: [{ t: 0, shape: shape(a) }] });
}

function round(x) { return Math.round(x * 1000) / 1000; }
