/*
 * cmd_report.c - `ibr report`: one self-contained HTML page about a fabric
 * and its routing (no network: inline CSS, inline SVG drawn by an inline
 * script). The numbers travel in a JSON block (<script type=
 * "application/json" id="data">): the verifier's report, the analysis as
 * ibr_analysis_write_json() writes it (so pattern families the library
 * adds appear without changing this file), the all-to-all link load
 * grouped by the ranks of the link's ends, the busiest links and, with
 * --sweep, the fault sweep of `ibr sweep`. The page's script draws
 * everything from that block and tags each number it shows with its path
 * in the JSON (data-path), which tests/cli/test_report.py checks in a
 * headless browser.
 *
 *   ibr report TOPOLOGY [LFTS_DUMP] [-R CHAIN] -o FILE.html [--sweep]
 *              [--cables all|N] [--k-max K] [--trials T] [--patterns LIST]
 *              [--random N] [--seed N] [--threads N] [--guid2lid FILE]
 *
 * Uses the public API only.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The page's style sheet and script (written as C strings so that the
   page needs no file beside ibr). */
static const char *const report_css[] = {
    "body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #222; background: #fff; }\n",
    "header { background: #243447; color: #fff; padding: 12px 24px; }\n",
    "header h1 { margin: 0; font-size: 20px; }\n",
    "header p { margin: 4px 0 0; color: #cfd8e3; }\n",
    "#main { padding: 0 24px 24px; display: flex; flex-wrap: wrap; gap: 0 32px; }\n",
    "section { flex: 1 1 560px; min-width: 0; overflow-x: auto; }\n",
    "section.wide { flex-basis: 100%; }\n",
    "h2 { font-size: 16px; border-bottom: 1px solid #ccc; padding-bottom: 4px; margin-top: 20px; }\n",
    "h3 { font-size: 14px; }\n",
    "table { border-collapse: collapse; margin: 8px 0; font-variant-numeric: tabular-nums; }\n",
    "th, td { border: 1px solid #ddd; padding: 2px 8px; text-align: right; }\n",
    "th { background: #f0f3f6; }\n",
    "td:first-child, th:first-child { text-align: left; }\n",
    "table.kv tr:first-child { display: none; }\n",
    ".note { color: #555; max-width: 60em; }\n",
    ".verdict { font-size: 16px; }\n",
    ".badge { display: inline-block; padding: 4px 10px; border-radius: 4px; margin-right: 12px; }\n",
    ".good { background: #dff3df; color: #185c18; }\n",
    ".bad { background: #fbe0e0; color: #8a1414; }\n",
    "svg { display: block; margin: 8px 0; overflow: visible; }\n",
    "svg text { font: 11px system-ui, sans-serif; fill: #333; }\n",
    "svg .ct { font-weight: bold; }\n",
    "svg .ax, svg .bv { text-anchor: middle; }\n",
    "svg .rl { text-anchor: end; }\n",
    "svg .ax1 { text-anchor: end; }\n",
    "svg .axis { stroke: #666; }\n",
    "svg .bound { stroke: #000; stroke-width: 2; stroke-dasharray: 4,3; }\n",
};

static const char *const report_js[] = {
    "(function () {\n",
    "  'use strict';\n",
    "  var body = document.body;\n",
    "  window.addEventListener('error', function (ev) {\n",
    "    body.setAttribute('data-rendered', 'error');\n",
    "    var p = document.createElement('p');\n",
    "    p.className = 'bad';\n",
    "    p.textContent = 'rendering failed: ' + ev.message;\n",
    "    body.appendChild(p);\n",
    "  });\n",
    "  var D = JSON.parse(document.getElementById('data').textContent);\n",
    "  var A = D.analysis;\n",
    "  var SVGNS = 'http://www.w3.org/2000/svg';\n",
    "  var COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf', '#8c564b',\n",
    "                '#e377c2', '#7f7f7f', '#bcbd22'];\n",
    "  var main = document.getElementById('main');\n",
    "\n",
    "  function el(tag, attrs, text) {\n",
    "    var e = document.createElement(tag);\n",
    "    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });\n",
    "    if (text !== undefined) e.textContent = text;\n",
    "    return e;\n",
    "  }\n",
    "  function sv(tag, attrs, text) {\n",
    "    var e = document.createElementNS(SVGNS, tag);\n",
    "    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });\n",
    "    if (text !== undefined) e.textContent = text;\n",
    "    return e;\n",
    "  }\n",
    "  /* Numbers as the page shows them: integers exactly, others to 6\n",
    "     significant digits; the test reads them back the same way. */\n",
    "  function fmt(v) {\n",
    "    if (v === null || v === undefined) return '-';\n",
    "    if (typeof v === 'boolean') return v ? 'yes' : 'no';\n",
    "    if (typeof v !== 'number') return String(v);\n",
    "    if (Number.isInteger(v)) return String(v);\n",
    "    return String(Number(v.toPrecision(6)));\n",
    "  }\n",
    "  function get(path) {\n",
    "    return path.split('.').reduce(function (o, k) { return o == null ? undefined : o[k]; }, D);\n",
    "  }\n",
    "  /* A number of the data, tagged with its path in the JSON. */\n",
    "  function num(path) {\n",
    "    return el('span', {'class': 'num', 'data-path': path}, fmt(get(path)));\n",
    "  }\n",
    "  /* Sections are drawn in data order and placed by CSS flex order: the\n",
    "     summary beside the histograms, the wide tables on their own rows. */\n",
    "  function section(title, note, wide, order) {\n",
    "    var s = el('section', {'class': wide ? 'wide' : '', style: 'order: ' + order});\n",
    "    s.appendChild(el('h2', {}, title));\n",
    "    if (note) s.appendChild(el('p', {'class': 'note'}, note));\n",
    "    main.appendChild(s);\n",
    "    return s;\n",
    "  }\n",
    "  function table(parent, head, rows) {\n",
    "    var t = el('table'), tr = el('tr');\n",
    "    head.forEach(function (h) { tr.appendChild(el('th', {}, h)); });\n",
    "    t.appendChild(tr);\n",
    "    rows.forEach(function (r) {\n",
    "      var row = el('tr');\n",
    "      r.forEach(function (c) {\n",
    "        var td = el('td');\n",
    "        if (c instanceof Node) td.appendChild(c); else td.textContent = c;\n",
    "        row.appendChild(td);\n",
    "      });\n",
    "      t.appendChild(row);\n",
    "    });\n",
    "    parent.appendChild(t);\n",
    "    return t;\n",
    "  }\n",
    "  function isFamily(v) {\n",
    "    return v && typeof v === 'object' && !Array.isArray(v) && typeof v.ebb === 'number';\n",
    "  }\n",
    "  var families = Object.keys(A).filter(function (k) { return isFamily(A[k]); });\n",
    "\n",
    "  /* Bars of values[i] (paths[i] in the data) labelled labels[i]. */\n",
    "  function bars(parent, title, paths, labels) {\n",
    "    var w = Math.max(320, 34 * paths.length + 60), h = 200, left = 50, top = 20, bh = 140;\n",
    "    var vals = paths.map(get), max = Math.max.apply(null, vals.concat([1]));\n",
    "    var s = sv('svg', {width: w, height: h + 20, viewBox: '0 0 ' + w + ' ' + (h + 20),\n",
    "                       role: 'img', 'aria-label': title});\n",
    "    s.appendChild(sv('text', {x: 4, y: 14, 'class': 'ct'}, title));\n",
    "    var bw = (w - left - 10) / paths.length;\n",
    "    vals.forEach(function (v, i) {\n",
    "      var bhi = v / max * bh, x = left + i * bw;\n",
    "      var r = sv('rect', {x: x + 2, y: top + bh - bhi, width: Math.max(1, bw - 4), height: bhi,\n",
    "                          fill: COLORS[0]});\n",
    "      r.appendChild(sv('title', {}, labels[i] + ': ' + fmt(v)));\n",
    "      s.appendChild(r);\n",
    "      s.appendChild(sv('text', {x: x + bw / 2, y: top + bh + 14, 'class': 'ax'}, labels[i]));\n",
    "      s.appendChild(sv('text', {x: x + bw / 2, y: top + bh - bhi - 3, 'class': 'bv',\n",
    "                                'data-path': paths[i]}, fmt(v)));\n",
    "    });\n",
    "    s.appendChild(sv('line', {x1: left, y1: top + bh, x2: w - 8, y2: top + bh, 'class': 'axis'}));\n",
    "    parent.appendChild(s);\n",
    "  }\n",
    "\n",
    "  /* 1. Summary and verdict */\n",
    "  (function () {\n",
    "    var s = section('Summary and verdict', '', false, 1);\n",
    "    var v = el('p', {'class': 'verdict'});\n",
    "    [['valid', 'verify.valid', 'routes valid'], ['df', 'verify.deadlock_free', 'deadlock-free']]\n",
    "      .forEach(function (x) {\n",
    "        var ok = get(x[1]) === true;\n",
    "        var b = el('span', {'class': 'badge ' + (ok ? 'good' : 'bad')});\n",
    "        b.appendChild(el('b', {}, x[2] + ': '));\n",
    "        b.appendChild(num(x[1]));\n",
    "        v.appendChild(b);\n",
    "      });\n",
    "    s.appendChild(v);\n",
    "    if (get('verify.first_error')) s.appendChild(el('p', {'class': 'bad'}, get('verify.first_error')));\n",
    "    if (get('verify.credit_loop')) s.appendChild(el('p', {'class': 'bad'}, get('verify.credit_loop')));\n",
    "    var rows = [['topology', D.topology], ['routing', D.source], ['engine', A.engine || '-'],\n",
    "                ['switches', num('switches')], ['end ports', num('analysis.endports')]];\n",
    "    Object.keys(A).forEach(function (k) {\n",
    "      if (typeof A[k] === 'number' && k !== 'endports') rows.push([k.replace(/_/g, ' '), num('analysis.' + k)]);\n",
    "    });\n",
    "    ['routes_checked', 'routes_ok', 'pairs', 'pairs_ok', 'loops', 'dead_end', 'nonminimal']\n",
    "      .forEach(function (k) {\n",
    "        if (typeof get('verify.' + k) === 'number') rows.push(['verify: ' + k.replace(/_/g, ' '), num('verify.' + k)]);\n",
    "      });\n",
    "    table(s, ['', ''], rows).className = 'kv';\n",
    "  })();\n",
    "\n",
    "  /* 2. Traffic patterns */\n",
    "  (function () {\n",
    "    var s = section('Traffic patterns',\n",
    "      'Congestion: flows on the busiest link. eBB: mean share of link bandwidth a flow gets. ' +\n",
    "      'Bound: the best eBB any routing over these cables could reach.', true, 3);\n",
    "    var cols = [];\n",
    "    families.forEach(function (f) {\n",
    "      Object.keys(A[f]).forEach(function (k) {\n",
    "        if (typeof A[f][k] === 'number' && cols.indexOf(k) < 0) cols.push(k);\n",
    "      });\n",
    "    });\n",
    "    table(s, ['pattern'].concat(cols.map(function (c) { return c.replace(/_/g, ' '); })),\n",
    "      families.map(function (f) {\n",
    "        return [f.replace(/_/g, ' ')].concat(cols.map(function (c) {\n",
    "          return A[f][c] === undefined ? '-' : num('analysis.' + f + '.' + c);\n",
    "        }));\n",
    "      }));\n",
    "    var w = Math.max(360, 110 * families.length + 60), h = 200;\n",
    "    var g = sv('svg', {width: w, height: h + 30, viewBox: '0 0 ' + w + ' ' + (h + 30), role: 'img',\n",
    "                       'aria-label': 'eBB and bound per pattern'});\n",
    "    g.appendChild(sv('text', {x: 4, y: 14, 'class': 'ct'}, 'eBB (bar) and bound (line) per pattern'));\n",
    "    families.forEach(function (f, i) {\n",
    "      var x = 50 + i * 110, e = A[f].ebb, b = A[f].ebb_bound;\n",
    "      g.appendChild(sv('rect', {x: x, y: 30 + 150 * (1 - e), width: 70, height: 150 * e,\n",
    "                                fill: COLORS[i % COLORS.length]}));\n",
    "      if (typeof b === 'number')\n",
    "        g.appendChild(sv('line', {x1: x - 6, x2: x + 76, y1: 30 + 150 * (1 - b), y2: 30 + 150 * (1 - b),\n",
    "                                  'class': 'bound'}));\n",
    "      g.appendChild(sv('text', {x: x + 35, y: 196, 'class': 'ax'}, f.replace(/_/g, ' ')));\n",
    "      g.appendChild(sv('text', {x: x + 35, y: 26 + 150 * (1 - e), 'class': 'bv',\n",
    "                                'data-path': 'analysis.' + f + '.ebb'}, fmt(e)));\n",
    "    });\n",
    "    g.appendChild(sv('line', {x1: 44, y1: 180, x2: w - 8, y2: 180, 'class': 'axis'}));\n",
    "    s.appendChild(g);\n",
    "  })();\n",
    "\n",
    "  /* 2b. Workloads over the rank order (ibr analyze --workloads) */\n",
    "  (function () {\n",
    "    var W = A.workloads;\n",
    "    if (!Array.isArray(W) || !W.length) return;\n",
    "    var s = section('Workloads',\n",
    "      'Collective and application patterns over ' + fmt(A.ranks) + ' ranks in rank order. ' +\n",
    "      'eBB: mean share of link bandwidth a flow gets (worst: of the worst step or pattern). ' +\n",
    "      'Bound: the best eBB any routing over these cables could reach. Limiting links: the ' +\n",
    "      'busiest links of the most congested pattern.', true, 3);\n",
    "    var cols = [];\n",
    "    W.forEach(function (w) {\n",
    "      Object.keys(w).forEach(function (k) {\n",
    "        if (typeof w[k] === 'number' && cols.indexOf(k) < 0) cols.push(k);\n",
    "      });\n",
    "    });\n",
    "    table(s, ['workload'].concat(cols.map(function (c) { return c.replace(/_/g, ' '); })),\n",
    "      W.map(function (w, i) {\n",
    "        return [w.name].concat(cols.map(function (c) {\n",
    "          return w[c] === undefined ? '-' : num('analysis.workloads.' + i + '.' + c);\n",
    "        }));\n",
    "      }));\n",
    "    var rows = [];\n",
    "    W.forEach(function (w, i) {\n",
    "      (w.limiting_links || []).forEach(function (l, j) {\n",
    "        var q = 'analysis.workloads.' + i + '.limiting_links.' + j + '.';\n",
    "        rows.push([w.name, l.switch, num(q + 'port'), l.peer, num(q + 'peer_port'), num(q + 'flows')]);\n",
    "      });\n",
    "    });\n",
    "    s.appendChild(el('h3', {}, 'Limiting links per workload'));\n",
    "    table(s, ['workload', 'from switch', 'port', 'to switch', 'port', 'flows'], rows);\n",
    "  })();\n",
    "\n",
    "  /* 3. Link load heat maps: by level, and by dimension on a torus, mesh or hypercube */\n",
    "  function heat(title, what, key, label, order) {\n",
    "    var L = D[key] || [];\n",
    "    var s = section(title,\n",
    "      'All-to-all flows per directed switch-to-switch link, grouped ' + what + '. Each row spreads ' +\n",
    "      'its links over ' + (D.load_bins || 0) + ' equal load ranges from the least loaded link (' +\n",
    "      fmt(D.load_min) + ' flows) to the busiest (' + fmt(D.load_max) + ' flows); darker cells ' +\n",
    "      'hold more of the row\\'s links.', false, order);\n",
    "    if (!L.length) { s.appendChild(el('p', {}, 'No switch-to-switch links.')); return; }\n",
    "    var nb = D.load_bins, cw = 15, rh = 20, left = 100, w = left + nb * cw + 20,\n",
    "        h = 30 + L.length * rh + 30;\n",
    "    var g = sv('svg', {width: w, height: h, viewBox: '0 0 ' + w + ' ' + h, role: 'img',\n",
    "                       'aria-label': title});\n",
    "    L.forEach(function (row, i) {\n",
    "      var y = 20 + i * rh;\n",
    "      g.appendChild(sv('text', {x: left - 6, y: y + 15, 'class': 'rl'}, row.name));\n",
    "      row.bins.forEach(function (c, b) {\n",
    "        var f = row.links ? c / row.links : 0;\n",
    "        var r = sv('rect', {x: left + b * cw, y: y, width: cw - 1, height: rh - 1,\n",
    "                            fill: c ? 'rgba(200,30,30,' + (0.12 + 0.88 * f).toFixed(3) + ')' : '#f4f4f4'});\n",
    "        var span = D.load_max - D.load_min;\n",
    "        r.appendChild(sv('title', {}, row.name + ': ' + c + ' links with load ' +\n",
    "          Math.round(D.load_min + b * span / nb) + '..' + Math.round(D.load_min + (b + 1) * span / nb)));\n",
    "        g.appendChild(r);\n",
    "      });\n",
    "    });\n",
    "    var yb = 20 + L.length * rh + 14;\n",
    "    g.appendChild(sv('text', {x: left, y: yb, 'class': 'ax0'}, fmt(D.load_min)));\n",
    "    g.appendChild(sv('text', {x: left + nb * cw, y: yb, 'class': 'ax1'}, fmt(D.load_max)));\n",
    "    s.appendChild(g);\n",
    "    table(s, [label, 'links', 'min', 'mean', 'max'], L.map(function (r, i) {\n",
    "      var p = key + '.' + i + '.';\n",
    "      return [r.name, num(p + 'links'), num(p + 'min'), num(p + 'mean'), num(p + 'max')];\n",
    "    }));\n",
    "  }\n",
    "  heat('Link load by level', 'by the ranks of its ends (rank 0: switches with end ports; on a ' +\n",
    "       'fat tree the tree levels)', 'link_levels', 'level', 4);\n",
    "  if ((D.link_dims || []).length)\n",
    "    heat('Link load by dimension', 'by the dimension it runs along (the switch graph read as a ' +\n",
    "         'torus, mesh or hypercube: ' + D.link_dims.length + ' dimensions)', 'link_dims',\n",
    "         'dimension', 4);\n",
    "\n",
    "  /* 4. Hops and VLs */\n",
    "  (function () {\n",
    "    var s = section('Hops and virtual lanes',\n",
    "      'Routed all-to-all flows by number of links (host links included), and by the VLs ' +\n",
    "      'they use' + (A.qos_levels > 1 ? ' (QoS level 0)' : '') + '.', false, 2);\n",
    "    var hp = [], hl = [];\n",
    "    (A.hop_histogram || []).forEach(function (c, i) { hp.push('analysis.hop_histogram.' + i); hl.push(String(i)); });\n",
    "    bars(s, 'flows per hop count', hp, hl);\n",
    "    var vp = [], vlab = [], last = 0;\n",
    "    (A.vl_usage || []).forEach(function (c, i) { if (c) last = i; });\n",
    "    for (var i = 0; i <= Math.max(last, 1); i++) { vp.push('analysis.vl_usage.' + i); vlab.push('VL' + i); }\n",
    "    bars(s, 'flows per VL', vp, vlab);\n",
    "  })();\n",
    "\n",
    "  /* 5. Fault sweep */\n",
    "  (function () {\n",
    "    var S = D.sweep;\n",
    "    var s = section('What one more fault costs', '', true, 6);\n",
    "    if (!S) { s.appendChild(el('p', {'class': 'note'}, 'No fault sweep in this report (ibr report --sweep).')); return; }\n",
    "    s.appendChild(el('p', {'class': 'note'},\n",
    "      'Each fault taken out alone and routed again by the same engine (repair in place ' +\n",
    "      'where it has one); ' + S.faults.length + ' faults of ' + S.cables_total + ' cables. ' +\n",
    "      'The curve: k random cables lost at once, median (solid) and minimum (dashed) eBB ' +\n",
    "      'relative to the intact fabric\\'s; the table gives the eBB itself.'));\n",
    "    var C = S.curve || [];\n",
    "    if (C.length) {\n",
    "      var w = 560, h = 260, l = 50, t = 20, pw = 380, ph = 200, kmax = C[C.length - 1].k;\n",
    "      var rel = function (f, v) { return S.baseline[f] > 0 ? v / S.baseline[f] : 1; };\n",
    "      var lo = 1;\n",
    "      C.forEach(function (p) { S.patterns.forEach(function (f) { lo = Math.min(lo, rel(f, p.min[f])); }); });\n",
    "      lo = Math.max(0, Math.floor(lo * 10) / 10 - 0.1);\n",
    "      var X = function (k) { return l + pw * k / Math.max(1, kmax); };\n",
    "      var Y = function (v) { return t + ph * (1 - (v - lo) / (1 - lo || 1)); };\n",
    "      var g = sv('svg', {width: w, height: h + 20, viewBox: '0 0 ' + w + ' ' + (h + 20), role: 'img',\n",
    "                         'aria-label': 'eBB relative to the intact fabric against random cable faults'});\n",
    "      g.appendChild(sv('line', {x1: l, y1: t + ph, x2: l + pw, y2: t + ph, 'class': 'axis'}));\n",
    "      g.appendChild(sv('line', {x1: l, y1: t, x2: l, y2: t + ph, 'class': 'axis'}));\n",
    "      g.appendChild(sv('text', {x: l - 4, y: t + 4, 'class': 'rl'}, '1'));\n",
    "      g.appendChild(sv('text', {x: l - 4, y: t + ph, 'class': 'rl'}, fmt(lo)));\n",
    "      g.appendChild(sv('text', {x: l + pw / 2, y: t + ph + 30, 'class': 'ax'}, 'cables lost (k)'));\n",
    "      for (var k = 0; k <= kmax; k++)\n",
    "        g.appendChild(sv('text', {x: X(k), y: t + ph + 14, 'class': 'ax'}, String(k)));\n",
    "      S.patterns.forEach(function (f, i) {\n",
    "        var col = COLORS[i % COLORS.length];\n",
    "        ['median', 'min'].forEach(function (m) {\n",
    "          var pts = [[0, 1]].concat(C.map(function (p) { return [p.k, rel(f, p[m][f])]; }));\n",
    "          g.appendChild(sv('polyline', {points: pts.map(function (q) { return X(q[0]) + ',' + Y(q[1]); }).join(' '),\n",
    "                                        fill: 'none', stroke: col, 'stroke-width': 2,\n",
    "                                        'stroke-dasharray': m === 'min' ? '5,4' : 'none'}));\n",
    "        });\n",
    "        g.appendChild(sv('rect', {x: l + pw + 20, y: t + 18 * i, width: 12, height: 12, fill: col}));\n",
    "        g.appendChild(sv('text', {x: l + pw + 38, y: t + 10 + 18 * i, 'class': 'lg'}, f.replace(/_/g, ' ')));\n",
    "      });\n",
    "      s.appendChild(g);\n",
    "      table(s, ['k', 'trials', 'failed'].concat(S.patterns.map(function (f) { return f + ' median / min'; })),\n",
    "        C.map(function (p, i) {\n",
    "          var q = 'sweep.curve.' + i + '.';\n",
    "          return [num(q + 'k'), num(q + 'trials'), num(q + 'failed')].concat(S.patterns.map(function (f) {\n",
    "            var sp = el('span');\n",
    "            sp.appendChild(num(q + 'median.' + f));\n",
    "            sp.appendChild(document.createTextNode(' / '));\n",
    "            sp.appendChild(num(q + 'min.' + f));\n",
    "            return sp;\n",
    "          }));\n",
    "        }));\n",
    "    }\n",
    "    s.appendChild(el('h3', {}, 'Worst single faults (eBB drop)'));\n",
    "    table(s, ['fault', 'route'].concat(S.patterns.map(function (f) { return f.replace(/_/g, ' ') + ' drop'; }))\n",
    "      .concat(['unrouted pairs']),\n",
    "      S.faults.slice(0, 20).map(function (x, i) {\n",
    "        var q = 'sweep.faults.' + i + '.';\n",
    "        var what = x.kind === 'switch' ? 'switch ' + x.a : x.a + '/' + x.port_a + ' - ' + x.b + '/' + x.port_b;\n",
    "        return [what, x.route].concat(S.patterns.map(function (f) { return num(q + 'drop.' + f); }))\n",
    "          .concat([num(q + 'unrouted_pairs')]);\n",
    "      }));\n",
    "  })();\n",
    "\n",
    "  /* 6. Limiting cables */\n",
    "  (function () {\n",
    "    var s = section('Limiting cables',\n",
    "      'The busiest directed switch-to-switch links under all-to-all traffic: the cables that ' +\n",
    "      'set the all-to-all congestion.', false, 5);\n",
    "    table(s, ['from switch', 'port', 'to switch', 'port', 'ranks', 'all-to-all flows'],\n",
    "      (D.limiting || []).map(function (c, i) {\n",
    "        var q = 'limiting.' + i + '.';\n",
    "        return [c.switch, num(q + 'port'), c.remote, num(q + 'remote_port'),\n",
    "                c.from_rank + ' \\u2192 ' + c.to_rank, num(q + 'load')];\n",
    "      }));\n",
    "  })();\n",
    "\n",
    "  if (body.getAttribute('data-rendered') !== 'error') body.setAttribute('data-rendered', 'ok');\n",
    "})();\n",
};

void usage_report(FILE *o)
{
    fputs("usage: ibr report TOPOLOGY [LFTS_DUMP] [-R CHAIN] -o FILE.html [options]\n"
          "\n"
          "Write one self-contained HTML page (no network: inline CSS, SVG and script)\n"
          "about a routing: the verifier's verdict (valid, deadlock-free), congestion and\n"
          "effective bisection bandwidth of every traffic pattern of ibr analyze, the\n"
          "all-to-all link load by tree level (rank of the link's switches) as a heat\n"
          "map, hop and VL histograms, the busiest cables and, with --sweep, what one\n"
          "more fault costs (as ibr sweep). The numbers are embedded as JSON in\n"
          "<script type=\"application/json\" id=\"data\">. The routing is read from\n"
          "LFTS_DUMP or computed in memory with CHAIN (default minhop).\n"
          "\n"
          "Options:\n"
          "  -o, --output FILE           the HTML file to write (required; - for stdout)\n"
          "  -R, --routing-engine CHAIN  engines tried in order (default minhop)\n"
          "  --title TEXT                the page's title (default: the topology)\n"
          "  --patterns LIST             as ibr analyze (all, or a2a,shift,perm,bisect)\n"
          "  --random N                  random permutations and bisections each (100)\n"
          "  --seed N                    seed of the random patterns and faults (1)\n"
          "  --threads N                 worker threads (0 = one per CPU, the default)\n"
          "  --guid2lid FILE             take the LIDs from an OpenSM guid2lid file\n"
          "  --ranks FILE, --workloads LIST, --grid AxB[xC], --moe G[,K], --rails N,\n"
          "  --top-links K               the workloads over a rank order, as ibr analyze\n"
          "  --sweep                     add the fault sweep (needs the routing computed\n"
          "                              in memory; costs one routing and analysis per fault)\n"
          "  --cables all|N              cables the sweep takes out (default 20)\n"
          "  --switches N                random switches the sweep takes out (0)\n"
          "  --k-max K                   its degradation curve up to K cables (4)\n"
          "  --trials T                  trials per point of the curve (3)\n"
          "  -q, --quiet                 no progress lines on stderr\n"
          "\n"
          "Exit status: 0 when the routing is valid, 1 when the verifier finds it invalid\n"
          "or the fabric is unroutable (the page is written when there are tables), 2 on\n"
          "usage or input errors.\n",
          o);
}

/* What the command line asks for. */
typedef struct report_args {
    const char *src, *dump, *chain, *out, *title;
    int sweep;
    cli_topo_args ta;
    sweep_cfg cfg;
} report_args;

enum { O_TITLE = CLI_OPT_OWN, O_SWEEP };

static int report_option(void *args, int c, const char *arg)
{
    report_args *ra = args;
    int rc;
    switch (c) {
    case 'R': ra->chain = arg; return 0;
    case 'o': ra->out = arg; return 0;
    case 'q': cli_quiet = 1; return 0;
    case O_TITLE: ra->title = arg; return 0;
    case O_SWEEP: ra->sweep = 1; return 0;
    default:
        if ((rc = cli_sweep_option(&ra->cfg, &ra->sweep, c, arg)) <= 0)
            return rc;
        return cli_shared_option(&ra->ta, NULL, c, arg, usage_report);
    }
}

/* 1 after --help, -1 on an error (reported), else 0. */
static int report_parse_args(report_args *ra, int argc, char **argv)
{
    static const struct option lo[] = {{"routing-engine", required_argument, NULL, 'R'},
                                       {"output", required_argument, NULL, 'o'},
                                       {"title", required_argument, NULL, O_TITLE},
                                       {"sweep", no_argument, NULL, O_SWEEP},
                                       CLI_SWEEP_LONG_OPTIONS,
                                       {"guid2lid", required_argument, NULL, CLI_OPT_GUID2LID},
                                       {"quiet", no_argument, NULL, 'q'},
                                       {"help", no_argument, NULL, 'h'},
                                       {0, 0, 0, 0}};
    int rc = cli_getopt_each(argc, argv, "R:o:hq", lo, usage_report, report_option, ra);
    if (rc != 0)
        return rc;
    if (optind + 1 != argc && optind + 2 != argc) {
        cli_error("CL025", "report", "expected TOPOLOGY [LFTS_DUMP] (try 'ibr %s --help')",
                  "report");
        return -1;
    }
    ra->src = argv[optind];
    ra->dump = optind + 2 == argc ? argv[optind + 1] : NULL;
    if (!ra->out) {
        cli_error("CL040", "report", "give the HTML file to write with -o FILE");
        return -1;
    }
    if (ra->dump && ra->chain) {
        cli_error("CL026", "report", "-R and LFTS_DUMP exclude each other");
        return -1;
    }
    if (ra->dump && ra->sweep) {
        cli_error("CL041", "report",
                  "--sweep routes the fabric again: it needs -R CHAIN, not LFTS_DUMP");
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Link load by rank */

/* Each switch's rank: hops to the nearest switch with end ports
   (UINT32_MAX: none reachable). NULL out of memory. */
static uint32_t *switch_ranks(const ibr_topo *t)
{
    uint32_t nsw = ibr_topo_switch_count(t);
    uint32_t *rank = malloc(((size_t)nsw + 1) * sizeof(*rank));
    uint32_t *queue = malloc(((size_t)nsw + 1) * sizeof(*queue));
    size_t head = 0, tail = 0;
    if (!rank || !queue) {
        free(rank);
        free(queue);
        return NULL;
    }
    for (uint32_t s = 0; s < nsw; s++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        uint32_t node = ibr_topo_switch_node(t, s);
        rank[s] = UINT32_MAX;
        ibr_topo_node_info(&ni, t, node);
        for (unsigned p = 1; p <= ni.nports && rank[s]; p++) {
            ibr_port_info pi = IBR_PORT_INFO_INIT;
            if (ibr_topo_port_info(&pi, t, node, p) == 0 && pi.remote_node != IBR_NONE &&
                pi.state == IBR_LINK_ACTIVE && ibr_topo_node_switch(t, pi.remote_node) == IBR_NONE) {
                rank[s] = 0;
                queue[tail++] = s;
            }
        }
    }
    while (head < tail) {
        uint32_t s = queue[head++], node = ibr_topo_switch_node(t, s);
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        ibr_topo_node_info(&ni, t, node);
        for (unsigned p = 1; p <= ni.nports; p++) {
            ibr_port_info pi = IBR_PORT_INFO_INIT;
            uint32_t o;
            if (ibr_topo_port_info(&pi, t, node, p) < 0 || pi.remote_node == IBR_NONE ||
                pi.state != IBR_LINK_ACTIVE ||
                (o = ibr_topo_node_switch(t, pi.remote_node)) == IBR_NONE || rank[o] != UINT32_MAX)
                continue;
            rank[o] = rank[s] + 1;
            queue[tail++] = o;
        }
    }
    free(queue);
    return rank;
}

/* One directed switch-to-switch link, in ibr_analysis_link_loads() order. */
typedef struct report_link {
    uint32_t sw, rsw;
    unsigned port, rport;
    uint64_t load;
} report_link;

#define REPORT_BINS 24
#define REPORT_GROUPS 64
#define REPORT_LIMITING 20

/* Links of one pair of ranks. */
typedef struct report_group {
    uint32_t from, to;
    uint64_t links, min, max, sum;
    uint64_t bins[REPORT_BINS];
} report_group;

/* The active switch-to-switch links of t (other switches only), as the
   analysis orders them; their number, or (size_t)-1 out of memory. */
static size_t report_links(report_link **out, const ibr_topo *t)
{
    size_t n = 0, cap = 64;
    report_link *l = malloc(cap * sizeof(*l));
    for (uint32_t s = 0; l && s < ibr_topo_switch_count(t); s++) {
        uint32_t node = ibr_topo_switch_node(t, s);
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        ibr_topo_node_info(&ni, t, node);
        for (unsigned p = 1; l && p <= ni.nports; p++) {
            ibr_port_info pi = IBR_PORT_INFO_INIT;
            uint32_t o;
            if (ibr_topo_port_info(&pi, t, node, p) < 0 || pi.remote_node == IBR_NONE ||
                pi.state != IBR_LINK_ACTIVE || pi.remote_node == node ||
                (o = ibr_topo_node_switch(t, pi.remote_node)) == IBR_NONE)
                continue;
            if (n == cap) {
                report_link *nl = realloc(l, 2 * cap * sizeof(*l));
                if (!nl) {
                    free(l);
                    l = NULL;
                    break;
                }
                l = nl;
                cap *= 2;
            }
            l[n++] = (report_link){s, o, p, pi.remote_port, 0};
        }
    }
    *out = l;
    return l ? n : (size_t)-1;
}

static int cmp_group(const void *a, const void *b)
{
    const report_group *x = a, *y = b;
    /* up links by level, then links within a level, then down links from the top */
    int dx = x->from < x->to ? 0 : x->from == x->to ? 1 : 2;
    int dy = y->from < y->to ? 0 : y->from == y->to ? 1 : 2;
    if (dx != dy)
        return dx - dy;
    if (x->from != y->from)
        return (x->from < y->from) == (dx < 2) ? -1 : 1;
    return (x->to > y->to) - (x->to < y->to);
}

static int cmp_load(const void *a, const void *b)
{
    const report_link *x = *(const report_link *const *)a, *y = *(const report_link *const *)b;
    if (x->load != y->load)
        return x->load < y->load ? 1 : -1;
    if (x->sw != y->sw)
        return x->sw < y->sw ? -1 : 1;
    return (x->port > y->port) - (x->port < y->port);
}

static void json_rank(FILE *o, uint32_t r)
{
    if (r == UINT32_MAX)
        fputs("null", o);
    else
        fprintf(o, "%" PRIu32, r);
}

/* One link of load v into gr; the bins spread [min, min + span]. */
static void group_add(report_group *gr, uint64_t v, uint64_t min, uint64_t span)
{
    gr->links++;
    gr->sum += v;
    gr->min = v < gr->min ? v : gr->min;
    gr->max = v > gr->max ? v : gr->max;
    uint64_t bin = span ? (v - min) * REPORT_BINS / span : 0;
    gr->bins[bin < REPORT_BINS ? bin : REPORT_BINS - 1]++;
}

/* Row k of link_levels (with its ranks) or, with is_dim, of link_dims
   (k is the dimension) as JSON, after a comma unless k is 0. */
static void group_json(FILE *o, const report_group *g, const char *name, int k, int is_dim)
{
    fprintf(o, "%s\n    {\"name\": \"%s\", ", k ? "," : "", name);
    if (is_dim)
        fprintf(o, "\"dim\": %d", k);
    else {
        fputs("\"from\": ", o);
        json_rank(o, g->from);
        fputs(", \"to\": ", o);
        json_rank(o, g->to);
    }
    fprintf(o, ", \"links\": %" PRIu64 ", \"min\": %" PRIu64 ", \"mean\": ", g->links,
            g->links ? g->min : 0);
    cli_json_double(o, g->links ? (double)g->sum / (double)g->links : 0.0);
    fprintf(o, ", \"max\": %" PRIu64 ", \"bins\": [", g->max);
    for (int b = 0; b < REPORT_BINS; b++)
        fprintf(o, "%s%" PRIu64, b ? ", " : "", g->bins[b]);
    fputs("]}", o);
}

/* The members link_levels, load_max, load_bins and limiting. */
static void report_levels(FILE *o, const report_link *l, size_t n, const uint32_t *rank,
                          const ibr_topo *t)
{
    report_group g[REPORT_GROUPS];
    size_t ng = 0;
    uint64_t max = 0, min = n ? UINT64_MAX : 0;
    for (size_t i = 0; i < n; i++) {
        max = l[i].load > max ? l[i].load : max;
        min = l[i].load < min ? l[i].load : min;
    }
    /* the bins spread the links' loads from the least to the most loaded */
    uint64_t span = max - min;
    for (size_t i = 0; i < n; i++) {
        uint32_t a = rank[l[i].sw], b = rank[l[i].rsw];
        size_t k = 0;
        while (k < ng && (g[k].from != a || g[k].to != b))
            k++;
        if (k == ng && ng == REPORT_GROUPS)
            k = ng - 1; /* more rank pairs than rows: the last row takes them */
        else if (k == ng) {
            memset(&g[ng++], 0, sizeof(*g));
            g[k].from = a;
            g[k].to = b;
            g[k].min = UINT64_MAX;
        }
        group_add(&g[k], l[i].load, min, span);
    }
    qsort(g, ng, sizeof(*g), cmp_group);
    fprintf(o, ",\n  \"load_min\": %" PRIu64 ", \"load_max\": %" PRIu64
            ", \"load_bins\": %d,\n  \"link_levels\": [", min, max, REPORT_BINS);
    for (size_t k = 0; k < ng; k++) {
        char name[64];
        if (g[k].from == UINT32_MAX || g[k].to == UINT32_MAX)
            snprintf(name, sizeof name, "unranked");
        else
            snprintf(name, sizeof name, "%" PRIu32 " -> %" PRIu32 " %s", g[k].from, g[k].to,
                     g[k].from < g[k].to ? "up" : g[k].from == g[k].to ? "across" : "down");
        group_json(o, &g[k], name, (int)k, 0);
    }
    fputs("],\n  \"limiting\": [", o);
    const report_link **by = malloc((n + 1) * sizeof(*by));
    size_t shown = 0;
    if (by) {
        for (size_t i = 0; i < n; i++)
            by[i] = &l[i];
        qsort(by, n, sizeof(*by), cmp_load);
        for (size_t i = 0; i < n && i < REPORT_LIMITING && by[i]->load; i++, shown++) {
            ibr_node_info a = IBR_NODE_INFO_INIT, b = IBR_NODE_INFO_INIT;
            ibr_topo_node_info(&a, t, ibr_topo_switch_node(t, by[i]->sw));
            ibr_topo_node_info(&b, t, ibr_topo_switch_node(t, by[i]->rsw));
            fprintf(o, "%s\n    {\"switch\": \"0x%016" PRIx64 "\", \"port\": %u, \"remote\": \"0x%016" PRIx64
                    "\", \"remote_port\": %u, \"from_rank\": ", shown ? "," : "", a.node_guid,
                    by[i]->port, b.node_guid, by[i]->rport);
            json_rank(o, rank[by[i]->sw]);
            fputs(", \"to_rank\": ", o);
            json_rank(o, rank[by[i]->rsw]);
            fprintf(o, ", \"load\": %" PRIu64 "}", by[i]->load);
        }
    }
    free(by);
    fputs("]", o);
}

/* ------------------------------------------------------------------------ */
/* Dimensions of a torus, mesh or hypercube */

#define REPORT_MAX_DIMS 8

/* The switch graph with parallel cables collapsed: switch s's neighbours
   nbr[off[s]] .. nbr[off[s + 1] - 1], sorted. */
typedef struct report_graph {
    uint32_t n, *off, *nbr, *uf; /* uf: union-find over the entries of nbr */
} report_graph;

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The entry of neighbour b in a's row, or UINT32_MAX. */
static uint32_t graph_pos(const report_graph *g, uint32_t a, uint32_t b)
{
    const uint32_t *row = g->nbr + g->off[a];
    const uint32_t *p = bsearch(&b, row, g->off[a + 1] - g->off[a], sizeof(*row), cmp_u32);
    return p ? (uint32_t)(p - g->nbr) : UINT32_MAX;
}

static uint32_t uf_find(uint32_t *uf, uint32_t x)
{
    while (uf[x] != x) {
        uf[x] = uf[uf[x]]; /* path halving */
        x = uf[x];
    }
    return x;
}

/* Put cables a-b and c-d (as entries of their rows; both directions of
   a cable are one) into one class. */
static void uf_join(report_graph *g, uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    uint32_t x = graph_pos(g, a < b ? a : b, a < b ? b : a);
    uint32_t y = graph_pos(g, c < d ? c : d, c < d ? d : c);
    if (x != UINT32_MAX && y != UINT32_MAX)
        g->uf[uf_find(g->uf, x)] = uf_find(g->uf, y);
}

/* -1 out of memory. */
static int graph_build(report_graph *g, const report_link *l, size_t n, uint32_t nsw)
{
    g->n = nsw;
    g->off = calloc(nsw + 2, sizeof(*g->off));
    g->nbr = malloc((n + 1) * sizeof(*g->nbr));
    g->uf = malloc((n + 1) * sizeof(*g->uf));
    if (!g->off || !g->nbr || !g->uf)
        return -1;
    /* report_links() lists the links switch by switch */
    for (size_t i = 0; i < n; i++)
        g->off[l[i].sw + 2]++;
    for (uint32_t s = 0; s < nsw; s++)
        g->off[s + 2] += g->off[s + 1];
    for (size_t i = 0; i < n; i++)
        g->nbr[g->off[l[i].sw + 1]++] = l[i].rsw;
    uint32_t w = 0;
    for (uint32_t s = 0; s < nsw; s++) {
        uint32_t a = g->off[s], b = g->off[s + 1];
        qsort(g->nbr + a, b - a, sizeof(*g->nbr), cmp_u32);
        g->off[s] = w;
        for (uint32_t k = a; k < b; k++)
            if (k == a || g->nbr[k] != g->nbr[k - 1])
                g->nbr[w++] = g->nbr[k];
    }
    g->off[nsw] = w;
    for (uint32_t k = 0; k < w; k++)
        g->uf[k] = k;
    return 0;
}

/* The classes of cables that run along one dimension of a Cartesian
   product of rings and paths: opposite sides of every 4-cycle are in one
   class, and two cables of a switch that lie on no common 4-cycle are too
   (the two directions of one ring or path). */
static void graph_classes(report_graph *g)
{
    for (uint32_t u = 0; u < g->n; u++)
        for (uint32_t i = g->off[u]; i < g->off[u + 1]; i++)
            for (uint32_t j = i + 1; j < g->off[u + 1]; j++) {
                uint32_t v = g->nbr[i], w = g->nbr[j];
                int square = 0;
                for (uint32_t k = g->off[v]; k < g->off[v + 1]; k++) {
                    uint32_t x = g->nbr[k];
                    if (x == u || graph_pos(g, w, x) == UINT32_MAX)
                        continue;
                    square = 1;
                    uf_join(g, u, v, w, x);
                    uf_join(g, u, w, v, x);
                }
                if (!square)
                    uf_join(g, u, v, u, w);
            }
}

/* dim[i] for every link of l: the dimension it runs along, numbered in
   order of first appearance; their number, or 0 when the switch graph
   does not read as a torus, mesh or hypercube (more than
   REPORT_MAX_DIMS classes, or a switch with more than two cables of a
   class), -1 out of memory. */
static int report_dims(int *dim, const report_link *l, size_t n, uint32_t nsw)
{
    report_graph g = {0};
    int nd = -1;
    if (graph_build(&g, l, n, nsw) < 0)
        goto out;
    graph_classes(&g);
    uint32_t root[REPORT_MAX_DIMS];
    nd = 0;
    for (uint32_t u = 0; u < nsw && nd >= 0; u++) {
        unsigned count[REPORT_MAX_DIMS] = {0};
        for (uint32_t k = g.off[u]; k < g.off[u + 1] && nd >= 0; k++) {
            uint32_t v = g.nbr[k];
            uint32_t c = uf_find(g.uf, graph_pos(&g, u < v ? u : v, u < v ? v : u));
            int d = 0;
            while (d < nd && root[d] != c)
                d++;
            if (d == nd && nd == REPORT_MAX_DIMS)
                nd = -2;
            else if (d == nd)
                root[nd++] = c;
            if (nd >= 0 && ++count[d] > 2)
                nd = -2;
        }
    }
    if (nd == -2) {
        nd = 0;
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t a = l[i].sw, b = l[i].rsw;
        uint32_t c = uf_find(g.uf, graph_pos(&g, a < b ? a : b, a < b ? b : a));
        dim[i] = 0;
        while (dim[i] < nd && root[dim[i]] != c)
            dim[i]++;
    }
out:
    free(g.off);
    free(g.nbr);
    free(g.uf);
    return nd;
}

/* The member link_dims: the links' loads grouped by dimension (empty
   when the fabric has switches of several ranks, or does not read as a
   torus, mesh or hypercube). -1 out of memory. */
static int report_dim_rows(FILE *o, const report_link *l, size_t n, const uint32_t *rank,
                           uint32_t nsw)
{
    int one_rank = n > 0;
    for (size_t i = 0; i < n; i++)
        one_rank &= rank[l[i].sw] == 0 && rank[l[i].rsw] == 0;
    int *dim = one_rank ? malloc(n * sizeof(*dim)) : NULL;
    int nd = dim ? report_dims(dim, l, n, nsw) : 0;
    if ((one_rank && !dim) || nd < 0) {
        free(dim);
        return -1;
    }
    uint64_t max = 0, min = n ? UINT64_MAX : 0;
    for (size_t i = 0; i < n; i++) {
        max = l[i].load > max ? l[i].load : max;
        min = l[i].load < min ? l[i].load : min;
    }
    report_group g[REPORT_MAX_DIMS];
    memset(g, 0, sizeof g);
    for (int d = 0; d < nd; d++)
        g[d].min = UINT64_MAX;
    for (size_t i = 0; i < n && nd > 0; i++)
        group_add(&g[dim[i]], l[i].load, min, max - min);
    fputs(",\n  \"link_dims\": [", o);
    for (int d = 0; d < nd; d++) {
        char name[32];
        snprintf(name, sizeof name, "dimension %d", d);
        group_json(o, &g[d], name, d, 1);
    }
    fputs("]", o);
    free(dim);
    return 0;
}

/* link_levels and the rest from the analysis's link loads. -1 out of
   memory. */
static int report_load(FILE *o, const ibr_topo *t, const ibr_analysis *a)
{
    report_link *l = NULL;
    uint64_t *loads = NULL;
    uint32_t *rank = switch_ranks(t);
    size_t n = report_links(&l, t), needed = 0;
    int rc = -1;
    if (!rank || n == (size_t)-1)
        goto out;
    loads = malloc((n + 1) * sizeof(*loads));
    if (!loads)
        goto out;
    if (ibr_analysis_link_loads(loads, n, &needed, a) < 0 || needed != n)
        n = 0; /* the analysis saw other links: leave the groups out */
    for (size_t i = 0; i < n; i++)
        l[i].load = loads[i];
    report_levels(o, l, n, rank, t);
    rc = report_dim_rows(o, l, n, rank, ibr_topo_switch_count(t));
out:
    free(rank);
    free(l);
    free(loads);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* The page */

static void html_text(FILE *o, const char *s)
{
    for (; *s; s++)
        switch (*s) {
        case '<': fputs("&lt;", o); break;
        case '>': fputs("&gt;", o); break;
        case '&': fputs("&amp;", o); break;
        case '"': fputs("&quot;", o); break;
        default: fputc(*s, o);
        }
}

/* The JSON inside <script>: "</" cannot appear there, and "<\/" reads the
   same in JSON. */
static void script_json(FILE *o, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '<' && i + 1 < n && s[i + 1] == '/')
            fputs("<\\", o);
        else
            fputc(s[i], o);
    }
}

static void write_page(FILE *o, const char *title, const char *subtitle, const char *json,
                       size_t len)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"generator\" content=\"ibroute " IBR_VERSION_STRING "\">\n<title>",
          o);
    html_text(o, title);
    fputs("</title>\n<style>\n", o);
    for (size_t i = 0; i < sizeof(report_css) / sizeof(*report_css); i++)
        fputs(report_css[i], o);
    fputs("</style>\n</head>\n<body data-rendered=\"no\">\n<header><h1>", o);
    html_text(o, title);
    fputs("</h1><p>", o);
    html_text(o, subtitle);
    fputs("</p></header>\n<noscript><p>This page draws its tables and charts with its inline "
          "script; the numbers are in the JSON block of its source.</p></noscript>\n"
          "<div id=\"main\"></div>\n<script type=\"application/json\" id=\"data\">\n",
          o);
    script_json(o, json, len);
    fputs("\n</script>\n<script>\n", o);
    for (size_t i = 0; i < sizeof(report_js) / sizeof(*report_js); i++)
        fputs(report_js[i], o);
    fputs("</script>\n</body>\n</html>\n", o);
}

/* ------------------------------------------------------------------------ */
/* The command */

/* The objects of one report. */
typedef struct report_run {
    cli_intact in;
    ibr_verify_report vrep;
    int vrc;
    ibr_analysis *a;
    sweep_result sw;
    int swept;
} report_run;

/* The data block into o. -1 out of memory (reported). */
static int report_data(FILE *o, report_run *rr, const report_args *ra)
{
    ibr_buffer vj = IBR_BUFFER_INIT, aj = IBR_BUFFER_INIT;
    int rc = -1;
    if (ibr_verify_report_write_json(&vj, &rr->vrep) < 0 || ibr_analysis_write_json(&aj, rr->a) < 0)
        goto out;
    fputs("{\"tool\": \"ibr report\", \"version\": \"" IBR_VERSION_STRING "\", \"topology\": ", o);
    cli_json_string(o, ra->src);
    char src[512];
    if (ra->dump)
        snprintf(src, sizeof src, "tables read from %s", ra->dump);
    else
        snprintf(src, sizeof src, "routed by %s (chain %s)", ibr_result_engine(rr->in.r),
                 ra->chain ? ra->chain : "minhop");
    fputs(", \"source\": ", o);
    cli_json_string(o, src);
    fprintf(o, ", \"switches\": %" PRIu32 ", \"nodes\": %" PRIu32 ",\n  \"verify\": ",
            ibr_topo_switch_count(rr->in.t), ibr_topo_node_count(rr->in.t));
    fwrite(vj.data, 1, vj.size, o);
    fputs(",\n  \"analysis\": ", o);
    while (aj.size && (aj.data[aj.size - 1] == '\n' || aj.data[aj.size - 1] == ' '))
        aj.size--;
    fwrite(aj.data, 1, aj.size, o);
    if (report_load(o, rr->in.t, rr->a) < 0)
        goto out;
    fputs(",\n  \"sweep\": ", o);
    if (rr->swept)
        cli_sweep_json(o, &rr->sw, &ra->cfg);
    else
        fputs("null", o);
    fputs("}\n", o);
    rc = 0;
out:
    ibr_buffer_dispose(&vj);
    ibr_buffer_dispose(&aj);
    return rc;
}

/* Load, route or read the tables, verify, analyse and sweep. An exit
   status; CLI_EXIT_OK when everything is there for the page. */
static int report_compute(report_run *rr, report_args *ra)
{
    int rc = cli_route_intact(&rr->in, ra->src, &ra->ta, ra->dump ? NULL : ra->chain ? ra->chain : "minhop");
    if (rc != CLI_EXIT_OK)
        return rc;
    if (ra->dump && cli_load_lfts(&rr->in.r, rr->in.t, ra->dump) < 0)
        return CLI_EXIT_ERROR;
    if (cli_sweep_prepare(&ra->cfg, rr->in.t) < 0)
        return CLI_EXIT_ERROR;
    ibr_verify_report_init(&rr->vrep, IBR_VERIFY_REPORT_VERSION);
    rr->vrep.threads = ra->cfg.aopts.threads;
    rr->vrc = ibr_result_verify(&rr->vrep, rr->in.r);
    if (rr->vrc < 0 && rr->vrc != IBR_EROUTES) {
        cli_lib_error("verify", ibr_result_last_error(rr->in.r), rr->vrc);
        return CLI_EXIT_ERROR;
    }
    if ((rc = ibr_result_analyze(&rr->a, rr->in.r, &ra->cfg.aopts)) < 0) {
        cli_lib_error("analyze", NULL, rc);
        return CLI_EXIT_ERROR;
    }
    if (ra->sweep) {
        if (cli_sweep_run(&rr->sw, rr->in.f, rr->in.r, rr->a, &ra->cfg) < 0) {
            cli_error("CL011", "sweep", "out of memory");
            return CLI_EXIT_ERROR;
        }
        rr->swept = 1;
    }
    return CLI_EXIT_OK;
}

/* The page into ra->out. 0, or -1 (reported). */
static int report_write(report_run *rr, const report_args *ra)
{
    char *json = NULL, *page = NULL;
    size_t jlen = 0, plen = 0;
    FILE *o = open_memstream(&json, &jlen);
    if (!o) {
        cli_error("CL011", "report", "out of memory");
        return -1;
    }
    int rc = report_data(o, rr, ra);
    if (fclose(o) != 0 || rc < 0) {
        free(json);
        cli_error("CL011", "report", "out of memory");
        return -1;
    }
    char title[512], sub[512];
    snprintf(title, sizeof title, "%s", ra->title ? ra->title : ra->src);
    snprintf(sub, sizeof sub, "ibroute report: %" PRIu32 " end ports, %" PRIu32 " switches, %s",
             ibr_topo_endport_count(rr->in.t), ibr_topo_switch_count(rr->in.t),
             ra->dump ? "tables from a dump" : ibr_result_engine(rr->in.r));
    o = open_memstream(&page, &plen);
    if (!o) {
        free(json);
        cli_error("CL011", "report", "out of memory");
        return -1;
    }
    write_page(o, title, sub, json, jlen);
    free(json);
    if (fclose(o) != 0) {
        free(page);
        cli_error("CL011", "report", "out of memory");
        return -1;
    }
    cli_out out;
    int err = cli_out_open(&out, ra->out);
    if (!err)
        err = cli_out_write(&out, page, plen);
    int cerr = err ? cli_out_close(&out, 0) : cli_out_close(&out, 1);
    free(page);
    if (err || cerr) {
        cli_error("CL030", ra->out, "cannot write: %s", strerror(err ? err : cerr));
        return -1;
    }
    return 0;
}

int cmd_report(int argc, char **argv)
{
    report_args ra = {.ta = CLI_TOPO_ARGS_INIT};
    cli_sweep_cfg_init(&ra.cfg);
    ra.cfg.aopts.n_random = 100; /* ibr analyze's default, so the numbers match it */
    ra.cfg.k_max = 4;
    ra.cfg.trials = 3;
    int rc = report_parse_args(&ra, argc, argv);
    if (rc != 0)
        return rc > 0 ? CLI_EXIT_OK : CLI_EXIT_ERROR;
    report_run rr;
    memset(&rr, 0, sizeof rr);
    int ret = report_compute(&rr, &ra);
    if (ret == CLI_EXIT_OK && report_write(&rr, &ra) < 0)
        ret = CLI_EXIT_ERROR;
    if (ret == CLI_EXIT_OK && rr.vrc != 0)
        ret = CLI_EXIT_INVALID;
    cli_sweep_free(&rr.sw);
    ibr_analysis_destroy(rr.a);
    cli_sweep_cfg_dispose(&ra.cfg); /* the rank order before its topology's context */
    cli_intact_dispose(&rr.in);
    return ret;
}
