//! Engagement charts: the numbers are computed by an [`Engine`] (in the panel, the Web Worker's
//! engine), and drawn on an HTML `<canvas>` of the page by free functions that hold no data
//! (wasm32 only, browser page only: plotters measures text through the DOM, which a worker
//! lacks). So the page never decodes a snapshot to draw a chart:
//!
//! ```js
//! // in the worker (engine-client.js):
//! const e = await eng.call('engagement', keys);   // {labels, dau, wau, mau, stickiness}
//! const h = await eng.call('streakHistogram', keys);
//! const r = await eng.call('retention', keys, 7, 7); // {labels, rows: [[size, d+1, …], …]}
//! const d = await eng.call('enumDistribution', 'stats:level:20240502', 4, 'stats:active:20240502');
//! // on the page (the wasm module initialised, no Engine):
//! drawDauChart(canvas, e.labels, e.dau, e.wau, e.mau, 'Daily actives');
//! drawStreakChart(canvas, h, 'Current streaks');
//! drawRetentionChart(canvas, r.labels, r.rows.flat().map((v) => v ?? NaN), 7, 'Retention');
//! drawEnumChart(canvas, d, 'Levels');
//! ```
//!
//! The arrays are the replies of the matching `BITLENS.*` commands (`BITLENS.DAU`,
//! `BITLENS.ROLLING 7|30`, `BITLENS.STREAKHIST`, `BITLENS.RETENTION`, `BITLENS.ENUMDIST`).
//! Missing daily keys are empty days; a key holding another type, a missing canvas, or (for
//! `enumDistribution`) a missing field key throw an `Error`.

use js_sys::{Array, Object};
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::analytics::daily::{CohortRow, Engagement};
use crate::analytics::windows::DayBitmaps;
use crate::analytics::{self, enums};
use crate::chart;
use crate::wasm::{set, throw, Engine, IntoJs};

/// The drawing area of `canvas`: an `HTMLCanvasElement` (works inside shadow roots) or the id
/// of one in the document; an error names what was not found.
fn drawing_area(
    canvas: &JsValue,
) -> Result<DrawingArea<CanvasBackend, plotters::coord::Shift>, JsError> {
    let backend = if let Some(c) = canvas.dyn_ref::<web_sys::HtmlCanvasElement>() {
        CanvasBackend::with_canvas_object(c.clone())
    } else if let Some(id) = canvas.as_string() {
        CanvasBackend::new(&id)
    } else {
        None
    };
    backend
        .map(|b| b.into_drawing_area())
        .ok_or_else(|| throw(format!("no <canvas> {canvas:?}")))
}

/// Draws with `draw` on `canvas` and presents the result.
fn draw_on(
    canvas: &JsValue,
    draw: impl FnOnce(
        &DrawingArea<CanvasBackend, plotters::coord::Shift>,
    ) -> Result<(), chart::ChartError>,
) -> Result<(), JsError> {
    let area = drawing_area(canvas)?;
    draw(&area).or_throw()?;
    area.present().or_throw()
}

fn numbers(v: &[u64]) -> Array {
    v.iter().map(|&n| JsValue::from_f64(n as f64)).collect()
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

fn labels_of(keys: &[String]) -> Array {
    keys.iter()
        .map(|k| JsValue::from_str(&analytics::date_label(k.as_bytes())))
        .collect()
}

#[wasm_bindgen]
impl Engine {
    /// `BITLENS.RETENTION lookback horizon keys…` as numbers: `{labels, rows}`, one row per
    /// cohort day: `[cohort size, back on d+1, …, back on d+horizon]`, `null` past the last
    /// key; `labels` are the cohort days' dates (`YYYY-MM-DD` from the key's digits).
    pub fn retention(
        &self,
        keys: Vec<String>,
        lookback: u32,
        horizon: u32,
    ) -> Result<Object, JsError> {
        let rows = DayBitmaps::load(&self.ks, &keys)
            .or_throw()?
            .retention(lookback as usize, horizon as usize);
        let labels: Array = rows
            .iter()
            .map(|r| JsValue::from_str(&analytics::date_label(keys[r.day].as_bytes())))
            .collect();
        let out: Array = rows
            .iter()
            .map(|r| {
                let row = Array::new();
                row.push(&JsValue::from_f64(r.size as f64));
                for v in &r.returned {
                    row.push(&v.map_or(JsValue::NULL, |n| JsValue::from_f64(n as f64)));
                }
                JsValue::from(row)
            })
            .collect();
        let obj = Object::new();
        set(&obj, "labels", &labels)?;
        set(&obj, "rows", &out)?;
        Ok(obj)
    }

    /// `BITLENS.ENUMDIST key u<width> [AMONG among]`: the `2^width` counts of the `u<width>`
    /// BITFIELD values in `key`, over the users set in bitmap `among` when given, else over
    /// every field. Throws when `key` does not exist (`no key …`) or `width` is not in 1..=16.
    #[wasm_bindgen(js_name = enumDistribution)]
    pub fn enum_distribution(
        &self,
        key: &str,
        width: u32,
        among: Option<String>,
    ) -> Result<Array, JsError> {
        if !(1..=16).contains(&width) {
            return Err(throw("field width must be 1..16"));
        }
        if self.ks.get(key.as_bytes()).is_none() {
            return Err(throw(format!("no key {key:?}")));
        }
        let bytes = analytics::bitmap(&self.ks, key.as_bytes()).or_throw()?;
        let hist = match &among {
            Some(a) => {
                let m = analytics::bitmap(&self.ks, a.as_bytes()).or_throw()?;
                enums::distribution_among(&bytes, width, &m)
            }
            None => enums::distribution(&bytes, width, None),
        };
        Ok(numbers(&hist))
    }

    /// The date labels (`YYYY-MM-DD`, from each key's trailing digits) of daily `keys`.
    #[wasm_bindgen(js_name = dateLabels)]
    pub fn date_labels(&self, keys: Vec<String>) -> Array {
        labels_of(&keys)
    }
}

/// Draws daily actives with the rolling 7/30-day actives (`dau`, `wau`, `mau`: one count per
/// day, as [`Engine::engagement`] gives them; `labels` the days' dates) on `canvas` (an
/// `HTMLCanvasElement` or the id of one), at the canvas' own size.
#[wasm_bindgen(js_name = drawDauChart)]
pub fn draw_dau_chart(
    canvas: JsValue,
    labels: Vec<String>,
    dau: Vec<f64>,
    wau: Vec<f64>,
    mau: Vec<f64>,
    title: &str,
) -> Result<(), JsError> {
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
    draw_on(&canvas, |a| chart::draw_dau(a, title, &labels, &e))
}

/// Draws a streak histogram (`BITLENS.STREAKHIST`: element `k − 1` = users set in exactly the
/// last `k` days) on `canvas` as bars.
#[wasm_bindgen(js_name = drawStreakChart)]
pub fn draw_streak_chart(canvas: JsValue, hist: Vec<f64>, title: &str) -> Result<(), JsError> {
    let hist = counts(&hist);
    draw_on(&canvas, |a| chart::draw_streak_histogram(a, title, &hist))
}

/// Draws the retention heatmap of `rows` (as [`Engine::retention`] gives them, flattened:
/// `1 + horizon` numbers per cohort, `NaN` for `null`), rows labelled by `labels`, on `canvas`.
#[wasm_bindgen(js_name = drawRetentionChart)]
pub fn draw_retention_chart(
    canvas: JsValue,
    labels: Vec<String>,
    rows: Vec<f64>,
    horizon: u32,
    title: &str,
) -> Result<(), JsError> {
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
    draw_on(&canvas, |a| chart::draw_retention(a, title, &labels, &rows))
}

/// Draws a value distribution (`BITLENS.ENUMDIST` counts, [`Engine::enum_distribution`]) on
/// `canvas` as bars, up to the last non-zero value.
#[wasm_bindgen(js_name = drawEnumChart)]
pub fn draw_enum_chart(canvas: JsValue, hist: Vec<f64>, title: &str) -> Result<(), JsError> {
    let hist = counts(&hist);
    draw_on(&canvas, |a| chart::draw_enum_distribution(a, title, &hist))
}

/// An SVG document (`width` × `height` pixels) mapping a nearby-shops search: the circle of
/// `radius_m` metres around (`lon`, `lat`) in degrees, and the result points given as
/// `coords = [lon0, lat0, lon1, lat1, …]` (degrees), the first `highlight` of them (the page on
/// screen) emphasised. Axes in kilometres east / north of the centre. Needs the page's DOM
/// (plotters measures text there), no engine.
#[wasm_bindgen(js_name = nearbyMapSvg)]
#[allow(clippy::too_many_arguments)]
pub fn nearby_map_svg(
    lon: f64,
    lat: f64,
    radius_m: f64,
    coords: Vec<f64>,
    highlight: u32,
    title: &str,
    width: u32,
    height: u32,
) -> Result<String, JsError> {
    let points: Vec<(f64, f64)> = coords.chunks_exact(2).map(|c| (c[0], c[1])).collect();
    chart::nearby_svg(
        title,
        (lon, lat),
        radius_m,
        &points,
        highlight as usize,
        width,
        height,
    )
    .or_throw()
}
