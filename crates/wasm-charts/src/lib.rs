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

use js_sys::Float64Array;
use serde::{Deserialize, Serialize};
use tsify::{Ts, Tsify};
use wasm_bindgen::prelude::*;

use bitlens::analytics::daily::{CohortRow, Engagement};
use bitlens::analytics::{self, userid::java_abs_hash_offset};
use bitlens_charts as chart;

/// A JS `Error` whose message is `message` and whose `kind` is `argument`, as the engine
/// module's `EngineError` (every error of a chart function is about its arguments).
fn throw(message: impl AsRef<str>) -> JsError {
    let error = JsError::new(message.as_ref());
    // A JsError is a handle on the one JS `Error`: the field set through a clone is on it.
    let object = JsValue::from(error.clone());
    let _ = js_sys::Reflect::set(&object, &"kind".into(), &"argument".into());
    error
}

/// The colours of a chart's [`ChartStyle`]: CSS colour strings (`#rrggbb`, `rgb(…)`, as the
/// page's computed custom properties give them); each left out keeps its default.
#[derive(Tsify, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct ChartColors {
    /// The SVG's background.
    #[tsify(optional)]
    pub background: Option<String>,
    /// Captions, ticks and axis titles.
    #[tsify(optional)]
    pub text: Option<String>,
    /// Grid lines.
    #[tsify(optional)]
    pub grid: Option<String>,
    /// The daily actives' line.
    #[tsify(optional)]
    pub dau: Option<String>,
    /// The 7-day actives' line.
    #[tsify(optional)]
    pub wau: Option<String>,
    /// The 30-day actives' line.
    #[tsify(optional)]
    pub mau: Option<String>,
    /// Bars.
    #[tsify(optional)]
    pub bar: Option<String>,
    /// The retention heatmap's lowest cell.
    #[tsify(optional)]
    pub heat_low: Option<String>,
    /// The retention heatmap's highest cell.
    #[tsify(optional)]
    pub heat_high: Option<String>,
    /// Emphasised points (the nearby map's page on screen).
    #[tsify(optional)]
    pub highlight: Option<String>,
    /// Other points.
    #[tsify(optional)]
    pub point: Option<String>,
    /// The nearby map's circle.
    #[tsify(optional)]
    pub circle: Option<String>,
}

/// The words of a chart's [`ChartStyle`]: axis titles and legend names (the page's language);
/// each left out keeps its English default.
#[derive(Tsify, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct ChartWords {
    /// The day axis.
    #[tsify(optional)]
    pub day: Option<String>,
    /// The user-count axis.
    #[tsify(optional)]
    pub users: Option<String>,
    /// The daily actives' legend name.
    #[tsify(optional)]
    pub dau: Option<String>,
    /// The 7-day actives' legend name.
    #[tsify(optional)]
    pub wau: Option<String>,
    /// The 30-day actives' legend name.
    #[tsify(optional)]
    pub mau: Option<String>,
    /// The streak chart's axis.
    #[tsify(optional)]
    pub streak_days: Option<String>,
    /// The value axis of a distribution.
    #[tsify(optional)]
    pub value: Option<String>,
    /// The retention heatmap's columns.
    #[tsify(optional)]
    pub days_after: Option<String>,
    /// The retention heatmap's rows.
    #[tsify(optional)]
    pub cohort: Option<String>,
    /// The nearby map's x axis.
    #[tsify(optional)]
    pub km_east: Option<String>,
    /// The nearby map's y axis.
    #[tsify(optional)]
    pub km_north: Option<String>,
}

/// A chart function's last argument: size, scale, number style, colours and words (every
/// field optional).
#[derive(Tsify, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct ChartStyle {
    /// The SVG's width in pixels, 1 to 16384 (900 when left out; with `height`).
    #[tsify(optional)]
    pub width: Option<f64>,
    /// The SVG's height in pixels, 1 to 16384 (400 when left out; with `width`).
    #[tsify(optional)]
    pub height: Option<f64>,
    /// Pixels per CSS pixel for fonts, margins and strokes, 0.25 to 8 (`devicePixelRatio` when
    /// painted on a canvas of that backing size; default 1).
    #[tsify(optional)]
    pub scale: Option<f64>,
    /// The tick labels' number style (`en`: 12.5k, `zh`: 1.3万).
    #[tsify(optional)]
    pub locale: Option<String>,
    /// Colours.
    #[tsify(optional)]
    pub colors: Option<ChartColors>,
    /// Axis titles and legend names.
    #[tsify(optional)]
    pub words: Option<ChartWords>,
}

/// A chart function's `style` read: the drawing style and the SVG's size.
struct Options {
    style: chart::Style,
    /// The SVG's size in pixels (900 × 400 when not given).
    size: (u32, u32),
}

/// Reads `style` (undefined or null: the defaults). Errors name the field.
fn options(style: Option<Ts<ChartStyle>>) -> Result<Options, JsError> {
    let given: ChartStyle = match style {
        None => ChartStyle::default(),
        Some(s) => bitlens_wasm_options::read_unguarded(&s.js_value(), "style")
            .map_err(|e| throw(e.to_string()))?,
    };
    let mut out = chart::Style::default();
    if let Some(scale) = given.scale {
        if !(0.25..=8.0).contains(&scale) {
            return Err(throw(format!("style.scale {scale} is not in 0.25..8")));
        }
        out.scale = scale;
    }
    if let Some(locale) = &given.locale {
        out.numbers = chart::Numbers::for_locale(locale);
    }
    if let Some(c) = given.colors {
        let p = &mut out.palette;
        let [dau, wau, mau] = &mut p.series;
        for (name, slot, text) in [
            ("background", &mut p.background, c.background),
            ("text", &mut p.text, c.text),
            ("grid", &mut p.grid, c.grid),
            ("dau", dau, c.dau),
            ("wau", wau, c.wau),
            ("mau", mau, c.mau),
            ("bar", &mut p.bar, c.bar),
            ("heatLow", &mut p.heat_low, c.heat_low),
            ("heatHigh", &mut p.heat_high, c.heat_high),
            ("highlight", &mut p.highlight, c.highlight),
            ("point", &mut p.point, c.point),
            ("circle", &mut p.circle, c.circle),
        ] {
            if let Some(text) = text {
                *slot = chart::css_color(&text)
                    .map_err(|e| throw(format!("style.colors.{name}: {e}")))?;
            }
        }
    }
    if let Some(w) = given.words {
        let o = &mut out.words;
        for (slot, text) in [
            (&mut o.day, w.day),
            (&mut o.users, w.users),
            (&mut o.dau, w.dau),
            (&mut o.wau, w.wau),
            (&mut o.mau, w.mau),
            (&mut o.streak_days, w.streak_days),
            (&mut o.value, w.value),
            (&mut o.days_after, w.days_after),
            (&mut o.cohort, w.cohort),
            (&mut o.km_east, w.km_east),
            (&mut o.km_north, w.km_north),
        ] {
            if let Some(text) = text {
                *slot = text;
            }
        }
    }
    let dim = |name: &str, v: Option<f64>| -> Result<Option<u32>, JsError> {
        v.map(|v| {
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
    let size = match (dim("width", given.width)?, dim("height", given.height)?) {
        (Some(w), Some(h)) => (w, h),
        (None, None) => DEFAULT_SIZE,
        _ => return Err(throw("style.width and style.height go together")),
    };
    Ok(Options { style: out, size })
}

/// The size of a chart whose `style` gives none.
const DEFAULT_SIZE: (u32, u32) = (900, 400);

/// The plot area of a [`Chart`] in SVG pixels and its data ranges.
#[derive(Tsify, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChartPlot {
    /// Left edge, SVG pixels.
    pub left: f64,
    /// Top edge, SVG pixels.
    pub top: f64,
    /// Right edge, SVG pixels.
    pub right: f64,
    /// Bottom edge, SVG pixels.
    pub bottom: f64,
    /// The x axis' data range `[x0, x1]`.
    pub x_range: [f64; 2],
    /// The y axis' data range `[y0, y1]`.
    pub y_range: [f64; 2],
}

/// What a chart function returns (see the module header).
#[derive(Tsify, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Chart {
    /// The SVG document.
    pub svg: String,
    /// Its width, pixels.
    pub width: u32,
    /// Its height, pixels.
    pub height: u32,
    /// The x axis' title as drawn.
    pub x_desc: String,
    /// The y axis' title as drawn.
    pub y_desc: String,
    /// The legend's names as drawn.
    pub legend: Vec<String>,
    /// The plot area and its data ranges.
    pub plot: ChartPlot,
    /// `[x, y, row, col]` per data point: SVG pixels, the row of the chart's numbers (day,
    /// bar, cohort or result) and, in the retention heatmap, the day after − 1 (else 0).
    #[serde(with = "serde_wasm_bindgen::preserve")]
    #[tsify(type = "Float64Array")]
    pub points: Float64Array,
}

/// A drawn chart as its [`Chart`] result (module header).
fn chart_js(c: chart::Chart, (width, height): (u32, u32)) -> Result<Ts<Chart>, JsError> {
    let d = c.drawn;
    let p = &d.plot;
    let flat: Vec<f64> = d
        .points
        .iter()
        .flat_map(|q| [q.x as f64, q.y as f64, q.row as f64, q.col as f64])
        .collect();
    let out = Chart {
        svg: c.svg,
        width,
        height,
        x_desc: d.x_desc,
        y_desc: d.y_desc,
        legend: d.legend,
        plot: ChartPlot {
            left: p.left as f64,
            top: p.top as f64,
            right: p.right as f64,
            bottom: p.bottom as f64,
            x_range: [p.x_range.0, p.x_range.1],
            y_range: [p.y_range.0, p.y_range.1],
        },
        points: Float64Array::from(&flat[..]),
    };
    Ts::from_rust(&out).map_err(|e| throw(e.to_string()))
}

/// Reads `style`, draws with `draw` at its size and style, and converts the chart.
fn draw_with(
    style: Option<Ts<ChartStyle>>,
    draw: impl FnOnce(u32, u32, &chart::Style) -> Result<chart::Chart, chart::ChartError>,
) -> Result<Ts<Chart>, JsError> {
    let opts = options(style)?;
    let (w, h) = opts.size;
    let c = draw(w, h, &opts.style).map_err(|e| throw(e.to_string()))?;
    chart_js(c, opts.size)
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
    style: Option<Ts<ChartStyle>>,
) -> Result<Ts<Chart>, JsError> {
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
    draw_with(style, |w, h, s| {
        chart::dau_chart(title, &labels, &e, w, h, s)
    })
}

/// A streak histogram (`BITLENS.STREAKHIST`: element `k − 1` = users set in exactly the last
/// `k` days) as an SVG bar chart; a point per bar.
#[wasm_bindgen(js_name = streakChart)]
pub fn streak_chart(
    hist: Vec<f64>,
    title: &str,
    style: Option<Ts<ChartStyle>>,
) -> Result<Ts<Chart>, JsError> {
    let hist = counts(&hist);
    draw_with(style, |w, h, s| chart::streak_chart(title, &hist, w, h, s))
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
    style: Option<Ts<ChartStyle>>,
) -> Result<Ts<Chart>, JsError> {
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
    draw_with(style, |w, h, s| {
        chart::retention_chart(title, &labels, &rows, w, h, s)
    })
}

/// A value distribution (`BITLENS.ENUMDIST` counts, the engine's `enumDistribution`) as an SVG
/// bar chart up to the last non-zero value; a point per bar.
#[wasm_bindgen(js_name = enumChart)]
pub fn enum_chart(
    hist: Vec<f64>,
    title: &str,
    style: Option<Ts<ChartStyle>>,
) -> Result<Ts<Chart>, JsError> {
    let hist = counts(&hist);
    draw_with(style, |w, h, s| chart::enum_chart(title, &hist, w, h, s))
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
    style: Option<Ts<ChartStyle>>,
) -> Result<Ts<Chart>, JsError> {
    let points: Vec<(f64, f64)> = coords.chunks_exact(2).map(|c| (c[0], c[1])).collect();
    let q = chart::Nearby {
        centre: (lon, lat),
        radius_m,
        points: &points,
        highlight: highlight as usize,
    };
    draw_with(style, |w, h, s| chart::nearby_chart(title, &q, w, h, s))
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
