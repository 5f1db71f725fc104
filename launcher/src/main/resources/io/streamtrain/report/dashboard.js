// The live dashboard: polls api/timeline once a second, keeps the run's points, redraws the charts
// and writes the latest numbers into the page (text and data-value attributes). No libraries.
(function () {
  'use strict';
  var W = 760, H = 170, PAD = 40, SVG = 'http://www.w3.org/2000/svg';
  var DECIMALS = {'auc': 4, 'logloss': 4, 'base-logloss': 4};
  var run = {startMs: null, points: [], markers: []};
  var charts = null;
  var updates = 0;

  function el(name, attrs, parent) {
    var e = document.createElementNS(SVG, name);
    Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (parent) { parent.appendChild(e); }
    return e;
  }

  function fmt(key, v) {
    if (v === null || v === undefined) { return 'n/a'; }
    return v.toFixed(DECIMALS[key] || 0);
  }

  function buildCharts(data) {
    var box = document.getElementById('charts');
    charts = data.series.map(function (s) {
      var chart = document.createElement('div');
      var h = document.createElement('h2');
      h.textContent = s.title;
      chart.appendChild(h);
      box.appendChild(chart);
      var svg = el('svg', {id: 'chart-' + s.key, width: W, height: H, viewBox: '0 0 ' + W + ' ' + H,
        role: 'img', 'aria-label': s.title}, chart);
      el('rect', {width: W, height: H, fill: '#fff'}, svg);
      var markers = el('g', {'class': 'markers'}, svg);
      var line = el('polyline', {fill: 'none', stroke: '#1565c0', 'stroke-width': '2', points: '', 'data-points': '0'}, svg);
      var top = el('text', {x: 2, y: 14, 'font-size': 11}, svg);
      var bottom = el('text', {x: 2, y: H - 20, 'font-size': 11}, svg);
      var right = el('text', {x: W - PAD, y: H - 4, 'font-size': 11}, svg);
      return {series: s, markers: markers, line: line, top: top, bottom: bottom, right: right};
    });
    Object.keys(data.markerColours).forEach(function (kind) {
      var swatch = document.getElementById('legend-' + kind);
      if (swatch) { swatch.style.background = data.markerColours[kind]; }
    });
  }

  // Same scales as the static report (ReportWriter): x over the run's seconds, y from min(0, min) to max.
  function draw(data) {
    var span = Math.max(1, data.seconds - 1);
    charts.forEach(function (c, i) {
      var values = run.points.filter(function (p) { return p[i + 1] !== null; });
      var max = -Infinity, min = Infinity;
      values.forEach(function (p) { max = Math.max(max, p[i + 1]); min = Math.min(min, p[i + 1]); });
      var lo = values.length ? Math.min(0, min) : 0;
      var range = max > lo ? max - lo : 1;
      c.line.setAttribute('points', values.map(function (p) {
        var x = PAD + (W - 2 * PAD) * p[0] / span;
        var y = (H - 20) - (H - 30) * (p[i + 1] - lo) / range;
        return x.toFixed(1) + ',' + y.toFixed(1);
      }).join(' '));
      c.line.setAttribute('data-points', String(values.length));
      while (c.markers.firstChild) { c.markers.removeChild(c.markers.firstChild); }
      run.markers.forEach(function (m) {
        var x = (PAD + (W - 2 * PAD) * m.second / span).toFixed(1);
        var l = el('line', {'class': m.kind, stroke: data.markerColours[m.kind], x1: x, y1: 10, x2: x, y2: H - 20}, c.markers);
        el('title', {}, l).textContent = m.label;
      });
      c.top.textContent = values.length ? fmt(c.series.key, max) + ' ' + c.series.unit : c.series.unit + ': not reported yet';
      c.bottom.textContent = values.length ? fmt(c.series.key, lo) : '';
      c.right.textContent = data.seconds + ' s';
    });
  }

  function show(data) {
    Object.keys(data.now).forEach(function (key) {
      var cell = document.getElementById('now-' + key);
      if (cell) {
        var v = data.now[key];
        cell.setAttribute('data-value', v === null ? '' : String(v));
        cell.textContent = fmt(key, v);
      }
    });
    var lastMs = data.startMs + data.seconds * 1000;
    var ago = data.seconds > 0 ? ', newest about ' + Math.max(0, Math.round((Date.now() - lastMs) / 1000)) + ' s ago' : '';
    document.getElementById('title').textContent = 'streamtrain: ' + data.topic;
    document.getElementById('status').textContent = data.status + ' ' + data.topic + ': ' + data.records + ' records, '
        + data.seconds + ' s of metrics' + ago + (data.unreadable > 0 ? ', ' + data.unreadable + ' unreadable' : '');
    updates++;
    document.body.setAttribute('data-updates', String(updates));
    document.body.setAttribute('data-records', String(data.records));
  }

  function merge(data) {
    run.points = run.points.filter(function (p) { return p[0] < data.from; }).concat(data.points);
    run.markers = run.markers.filter(function (m) { return m.second < data.from; }).concat(data.markers);
    run.startMs = data.startMs;
  }

  function poll() {
    // Re-fetch the last 10 s each time: the newest seconds may still change as records arrive.
    var from = run.points.length ? Math.max(0, run.points[run.points.length - 1][0] - 10) : 0;
    fetch('api/timeline?from=' + from, {cache: 'no-store'})
      .then(function (r) { if (!r.ok) { throw new Error('HTTP ' + r.status); } return r.json(); })
      .then(function (data) {
        if (run.startMs !== null && data.startMs !== run.startMs && data.from > 0) {
          run = {startMs: null, points: [], markers: []}; // an earlier record moved second 0: start over
          return;
        }
        if (!charts) { buildCharts(data); }
        merge(data);
        draw(data);
        show(data);
      })
      .catch(function (e) { document.getElementById('status').textContent = 'cannot reach the dashboard server: ' + e.message; })
      .then(function () { setTimeout(poll, 1000); });
  }

  poll();
}());
