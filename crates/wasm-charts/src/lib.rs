//! The page's chart module (wasm32 only, `pkg/bitlens_charts.js`): the engagement charts of
//! `bitlens-charts` drawn as SVG documents by free functions that hold no data, and the user-id
//! rule ([`java_user_offset`]). It holds no engine: the numbers are computed by the engine
//! module (`crates/wasm`, `pkg/bitlens.js`) in the panel's Web Worker, so the page never
//! decodes a snapshot, and the worker carries no plotters. Browser page only: plotters
//! measures text through the DOM, which a worker lacks. The page paints the SVG on a `<canvas>`
//! backed at `devicePixelRatio` (or shows it as an image) and answers hovers from the points it
//! is given; one plotters backend (SVG):
//!
//! ```js
//! // in the worker (engine-client.js):
//! const e = await eng.call('engagement', keys);   // {labels, dau, wau, mau, stickiness}
//! const h = await eng.call('streakHistogram', keys);
//! const r = await eng.call('retention', keys, 7, 7); // {labels, rows: [[size, d+1, …], …]}
//! const d = await eng.call('enumDistribution', 'stats:level:20240502', 4, 'stats:active:20240502');
//! // on the page (import init, { dauChart, … } from './pkg/bitlens_charts.js'; await init()):
//! const c = dauChart(e.labels, e.dau, e.wau, e.mau, 'Daily actives', style);
//! streakChart(h, 'Current streaks', style);
//! retentionChart(r.labels, r.rows.flat().map((v) => v ?? NaN), 7, 'Retention', style);
//! enumChart(d, 'Levels', style);
//! nearbyChart(lon, lat, radiusM, [lon0, lat0, …], highlight, 'Shops', style);
//! ```
//!
//! Every chart function takes a last argument `style` (all fields optional):
//! `{width, height, scale, locale, colors: {background, text, grid, dau, wau, mau, bar,
//! heatLow, heatHigh, highlight, point, circle}, words: {day, users, dau, wau, mau, streakDays,
//! value, daysAfter, cohort, kmEast, kmNorth}}`. `width` × `height` (pixels, 1..=16384; 900 ×
//! 400 when absent) is the SVG's size; `scale` is its pixels per CSS pixel
//! (`devicePixelRatio` when painted on a canvas of that backing size) for fonts, margins and
//! strokes; `locale` picks the tick labels' number style (`en`: 12.5k, `zh`: 1.3万); colours
//! are CSS colour strings (`#rrggbb`, `rgb(…)`, as the page's computed custom properties give
//! them), words the axis titles and legend names.
//!
//! A chart function returns `{svg, width, height, xDesc, yDesc, legend, plot, points}`: the SVG
//! text and its size; the texts drawn besides the caption and ticks; `plot = {left, top,
//! right, bottom, xRange: [x0, x1], yRange: [y0, y1]}`, the plot area in SVG pixels and its data
//! ranges; `points`, a `Float64Array` of `[x, y, row, col]` per data point (SVG pixels; `row`
//! the row of the chart's numbers: day, bar, cohort or result, `col` the day after − 1 in the
//! retention heatmap, else 0), see `bitlens_charts::Point`.
//!
//! The arrays are the replies of the matching `BITLENS.*` commands (`BITLENS.DAU`,
//! `BITLENS.ROLLING 7|30`, `BITLENS.STREAKHIST`, `BITLENS.RETENTION`, `BITLENS.ENUMDIST`).
//! Missing daily keys are empty days; a key holding another type or (for `enumDistribution`) a
//! missing field key throw an `Error`.

#![cfg(target_arch = "wasm32")]

use js_sys::{Float64Array, Object, Reflect};
use serde::Serialize;
use wasm_bindgen::prelude::*;

use bitlens::analytics::daily::{CohortRow, Engagement};
use bitlens::analytics::{self, userid::java_abs_hash_offset};
use bitlens_charts as chart;

/// A JS `Error` whose message is `message`.
fn throw(message: impl AsRef<str>) -> JsError {
    JsError::new(message.as_ref())
}

/// A chart function's `style` argument, read (see the module header).
struct Options {
    style: chart::Style,
    /// The SVG's size in pixels (900 × 400 when not given).
    size: (u32, u32),
}

/// `obj[name]` when `obj` is an object and the field is neither undefined nor null.
fn field(obj: &JsValue, name: &str) -> Option<JsValue> {
    if !obj.is_object() {
        return None;
    }
    Reflect::get(obj, &JsValue::from_str(name))
        .ok()
        .filter(|v| !v.is_undefined() && !v.is_null())
}

fn string_field(obj: &JsValue, name: &str) -> Result<Option<String>, JsError> {
    field(obj, name)
        .map(|v| {
            v.as_string()
                .ok_or_else(|| throw(format!("style.{name} must be a string")))
        })
        .transpose()
}

fn number_field(obj: &JsValue, name: &str) -> Result<Option<f64>, JsError> {
    field(obj, name)
        .map(|v| {
            v.as_f64()
                .filter(|n| n.is_finite())
                .ok_or_else(|| throw(format!("style.{name} must be a finite number")))
        })
        .transpose()
}

/// Reads `style` (undefined or null: the defaults). Errors name the field.
fn options(style: &JsValue) -> Result<Options, JsError> {
    let mut out = chart::Style::default();
    if style.is_undefined() || style.is_null() {
        return Ok(Options {
            style: out,
            size: DEFAULT_SIZE,
        });
    }
    if !style.is_object() {
        return Err(throw("style must be an object"));
    }
    if let Some(scale) = number_field(style, "scale")? {
        if !(0.25..=8.0).contains(&scale) {
            return Err(throw(format!("style.scale {scale} is not in 0.25..8")));
        }
        out.scale = scale;
    }
    if let Some(locale) = string_field(style, "locale")? {
        out.numbers = chart::Numbers::for_locale(&locale);
    }
    if let Some(colors) = field(style, "colors") {
        let p = &mut out.palette;
        let [dau, wau, mau] = &mut p.series;
        for (name, slot) in [
            ("background", &mut p.background),
            ("text", &mut p.text),
            ("grid", &mut p.grid),
            ("dau", dau),
            ("wau", wau),
            ("mau", mau),
            ("bar", &mut p.bar),
            ("heatLow", &mut p.heat_low),
            ("heatHigh", &mut p.heat_high),
            ("highlight", &mut p.highlight),
            ("point", &mut p.point),
            ("circle", &mut p.circle),
        ] {
            if let Some(text) = string_field(&colors, name)? {
                *slot = chart::css_color(&text)
                    .map_err(|e| throw(format!("style.colors.{name}: {e}")))?;
            }
        }
    }
    if let Some(words) = field(style, "words") {
        let w = &mut out.words;
        for (name, slot) in [
            ("day", &mut w.day),
            ("users", &mut w.users),
            ("dau", &mut w.dau),
            ("wau", &mut w.wau),
            ("mau", &mut w.mau),
            ("streakDays", &mut w.streak_days),
            ("value", &mut w.value),
            ("daysAfter", &mut w.days_after),
            ("cohort", &mut w.cohort),
            ("kmEast", &mut w.km_east),
            ("kmNorth", &mut w.km_north),
        ] {
            if let Some(text) = string_field(&words, name)? {
                *slot = text;
            }
        }
    }
    let dim = |name: &str| -> Result<Option<u32>, JsError> {
        number_field(style, name)?
            .map(|v| {
                if v.fract() == 0.0 && (1.0..=16384.0).contains(&v) {
                    Ok(v as u32)
                } else {
                    Err(throw(format!(
                        "style.{name} {v} is not a whole number of pixels in 1..16384"
                    )))
                }
            })
            .transpose()
    };
    let size = match (dim("width")?, dim("height")?) {
        (Some(w), Some(h)) => (w, h),
        (None, None) => DEFAULT_SIZE,
        _ => return Err(throw("style.width and style.height go together")),
    };
    Ok(Options { style: out, size })
}

/// The size of a chart whose `style` gives none.
const DEFAULT_SIZE: (u32, u32) = (900, 400);

/// `plot` of a chart's result: the plot area in SVG pixels and its data ranges.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PlotJs {
    left: f64,
    top: f64,
    right: f64,
    bottom: f64,
    x_range: [f64; 2],
    y_range: [f64; 2],
}

/// A chart function's result but `points` (module header).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ChartJs<'a> {
    svg: &'a str,
    width: u32,
    height: u32,
    x_desc: &'a str,
    y_desc: &'a str,
    legend: &'a [String],
    plot: PlotJs,
}

/// `{svg, width, height, xDesc, yDesc, legend, plot, points}` of a chart (module header):
/// serialised from [`ChartJs`], `points` added as one `Float64Array`.
fn chart_js(c: &chart::Chart, (width, height): (u32, u32)) -> Result<Object, JsError> {
    let d = &c.drawn;
    let p = &d.plot;
    let out = ChartJs {
        svg: &c.svg,
        width,
        height,
        x_desc: &d.x_desc,
        y_desc: &d.y_desc,
        legend: &d.legend,
        plot: PlotJs {
            left: p.left as f64,
            top: p.top as f64,
            right: p.right as f64,
            bottom: p.bottom as f64,
            x_range: [p.x_range.0, p.x_range.1],
            y_range: [p.y_range.0, p.y_range.1],
        },
    };
    let obj: Object = serde_wasm_bindgen::to_value(&out)
        .map_err(|e| throw(e.to_string()))?
        .unchecked_into();
    let flat: Vec<f64> = d
        .points
        .iter()
        .flat_map(|q| [q.x as f64, q.y as f64, q.row as f64, q.col as f64])
        .collect();
    Reflect::set(&obj, &"points".into(), &Float64Array::from(&flat[..]))
        .map_err(|_| throw("cannot set points"))?;
    Ok(obj)
}

/// Reads `style`, draws with `draw` at its size and style, and converts the chart.
fn draw_with(
    style: &JsValue,
    draw: impl FnOnce(u32, u32, &chart::Style) -> Result<chart::Chart, chart::ChartError>,
) -> Result<Object, JsError> {
    let opts = options(style)?;
    let (w, h) = opts.size;
    let c = draw(w, h, &opts.style).map_err(|e| throw(e.to_string()))?;
    chart_js(&c, opts.size)
}

/// Counts given by JS as numbers (non-finite or negative ones are 0).
fn counts(v: &[f64]) -> Vec<u64> {
    v.iter()
        .map(|&n| {
            if n.is_finite() && n > 0.0 {
                n as u64
            } else {
                0
            }
        })
        .collect()
}

/// Daily actives with the rolling 7/30-day actives (`dau`, `wau`, `mau`: one count per day, as
/// [`Engine::engagement`] gives them; `labels` the days' dates) as an SVG chart (module
/// header); a point per day.
#[wasm_bindgen(js_name = dauChart)]
pub fn dau_chart(
    labels: Vec<String>,
    dau: Vec<f64>,
    wau: Vec<f64>,
    mau: Vec<f64>,
    title: &str,
    style: JsValue,
) -> Result<Object, JsError> {
    if labels.len() != dau.len() || wau.len() != dau.len() || mau.len() != dau.len() {
        return Err(throw("labels, dau, wau and mau differ in length"));
    }
    let (dau, wau, mau) = (counts(&dau), counts(&wau), counts(&mau));
    let stickiness = analytics::daily::ratios(&dau, &mau);
    let e = Engagement {
        dau,
        wau,
        mau,
        stickiness,
    };
    draw_with(&style, |w, h, s| {
        chart::dau_chart(title, &labels, &e, w, h, s)
    })
}

/// A streak histogram (`BITLENS.STREAKHIST`: element `k − 1` = users set in exactly the last
/// `k` days) as an SVG bar chart; a point per bar.
#[wasm_bindgen(js_name = streakChart)]
pub fn streak_chart(hist: Vec<f64>, title: &str, style: JsValue) -> Result<Object, JsError> {
    let hist = counts(&hist);
    draw_with(&style, |w, h, s| chart::streak_chart(title, &hist, w, h, s))
}

/// The retention heatmap of `rows` (as the engine's `retention` gives them, flattened:
/// `1 + horizon` numbers per cohort, `NaN` for `null`), rows labelled by `labels`, as an SVG
/// chart; a point per known cell (row = cohort, col = day after − 1).
#[wasm_bindgen(js_name = retentionChart)]
pub fn retention_chart(
    labels: Vec<String>,
    rows: Vec<f64>,
    horizon: u32,
    title: &str,
    style: JsValue,
) -> Result<Object, JsError> {
    let width = horizon as usize + 1;
    if rows.len() != labels.len() * width {
        return Err(throw("rows must hold 1 + horizon numbers per label"));
    }
    let rows: Vec<CohortRow> = rows
        .chunks_exact(width)
        .enumerate()
        .map(|(day, r)| CohortRow {
            day,
            size: counts(&r[..1])[0],
            returned: r[1..]
                .iter()
                .map(|&v| v.is_finite().then(|| counts(&[v])[0]))
                .collect(),
        })
        .collect();
    draw_with(&style, |w, h, s| {
        chart::retention_chart(title, &labels, &rows, w, h, s)
    })
}

/// A value distribution (`BITLENS.ENUMDIST` counts, the engine's `enumDistribution`) as an SVG
/// bar chart up to the last non-zero value; a point per bar.
#[wasm_bindgen(js_name = enumChart)]
pub fn enum_chart(hist: Vec<f64>, title: &str, style: JsValue) -> Result<Object, JsError> {
    let hist = counts(&hist);
    draw_with(&style, |w, h, s| chart::enum_chart(title, &hist, w, h, s))
}

/// A map of a nearby-shops search as an SVG chart: the circle of `radius_m` metres around
/// (`lon`, `lat`) in degrees, and the result points given as `coords = [lon0, lat0, lon1, lat1,
/// …]` (degrees), the first `highlight` of them (the page on screen) emphasised; a point per
/// result, in the given order. Axes in kilometres east / north of the centre.
#[wasm_bindgen(js_name = nearbyChart)]
pub fn nearby_chart(
    lon: f64,
    lat: f64,
    radius_m: f64,
    coords: Vec<f64>,
    highlight: u32,
    title: &str,
    style: JsValue,
) -> Result<Object, JsError> {
    let points: Vec<(f64, f64)> = coords.chunks_exact(2).map(|c| (c[0], c[1])).collect();
    let q = chart::Nearby {
        centre: (lon, lat),
        radius_m,
        points: &points,
        highlight: highlight as usize,
    };
    draw_with(&style, |w, h, s| chart::nearby_chart(title, &q, w, h, s))
}

/// The user-id → bit-offset rule of `bitlens::analytics::userid` for the panel's user lookup.
/// Applications that key bitmaps by a string user id (the state-statistics guide's
/// `getIndexFromUserId`, seed 000) set bit `Math.abs(userId.hashCode())` in Java; the panel asks
/// this function for that offset rather than re-implementing the hash in JS.
///
/// The bit offset Java's `Math.abs(id.hashCode())` gives for `id` (hashed over its UTF-16
/// code units, as `java.lang.String.hashCode`), as a number in `0..=2^31 − 1`; `undefined` for
/// the ids whose hash is `Integer.MIN_VALUE`, where Java's result stays negative and is no bit
/// offset.
#[wasm_bindgen(js_name = javaUserOffset)]
pub fn java_user_offset(id: &str) -> Option<f64> {
    java_abs_hash_offset(id).map(|o| o as f64)
}
