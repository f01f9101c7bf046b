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
//! drawEnumChart(canvas, d, 'Levels', style); // style: see below
//! ```
//!
//! Every draw function takes an optional last argument `style` (all fields optional):
//! `{width, height, scale, locale, colors: {background, text, grid, dau, wau, mau, bar,
//! heatLow, heatHigh, highlight, point, circle}, words: {day, users, dau, wau, mau, streakDays,
//! value, daysAfter, cohort, kmEast, kmNorth}}`. `width` × `height` (device pixels, 1..=16384)
//! become the canvas' backing size before drawing; `scale` is device pixels per CSS pixel
//! (`devicePixelRatio`) for fonts, margins and strokes; `locale` picks the tick labels' number
//! style (`en`: 12.5k, `zh`: 1.3万); colours are CSS colour strings (`#rrggbb`, `rgb(…)`, as
//! the page's computed custom properties give them), words the axis titles and legend names.
//! A draw returns the texts it drew besides the caption and ticks: `{xDesc, yDesc, legend}`.
//!
//! The arrays are the replies of the matching `BITLENS.*` commands (`BITLENS.DAU`,
//! `BITLENS.ROLLING 7|30`, `BITLENS.STREAKHIST`, `BITLENS.RETENTION`, `BITLENS.ENUMDIST`).
//! Missing daily keys are empty days; a key holding another type, a missing canvas, or (for
//! `enumDistribution`) a missing field key throw an `Error`.

use js_sys::{Array, Object, Reflect};
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::analytics::daily::{CohortRow, Engagement};
use crate::analytics::windows::DayBitmaps;
use crate::analytics::{self, enums};
use crate::chart;
use crate::wasm::{set, throw, Engine, IntoJs};

/// The `HTMLCanvasElement` `canvas` is (works inside shadow roots) or the one with that id in
/// the document; an error names what was not found.
fn canvas_element(canvas: &JsValue) -> Result<web_sys::HtmlCanvasElement, JsError> {
    if let Some(c) = canvas.dyn_ref::<web_sys::HtmlCanvasElement>() {
        return Ok(c.clone());
    }
    let by_id = canvas.as_string().and_then(|id| {
        let doc = Reflect::get(&js_sys::global(), &JsValue::from_str("document")).ok()?;
        let get = Reflect::get(&doc, &JsValue::from_str("getElementById")).ok()?;
        let found = get
            .dyn_ref::<js_sys::Function>()?
            .call1(&doc, &JsValue::from_str(&id))
            .ok()?;
        found.dyn_into::<web_sys::HtmlCanvasElement>().ok()
    });
    by_id.ok_or_else(|| throw(format!("no <canvas> {canvas:?}")))
}

/// A draw function's `style` argument, read (see the module header).
struct Options {
    style: chart::Style,
    /// Backing size in device pixels, when given.
    size: Option<(u32, u32)>,
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
            size: None,
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
        (Some(w), Some(h)) => Some((w, h)),
        (None, None) => None,
        _ => return Err(throw("style.width and style.height go together")),
    };
    Ok(Options { style: out, size })
}

/// `{xDesc, yDesc, legend}` of what a chart drew.
fn drawn_js(d: &chart::Drawn) -> Result<Object, JsError> {
    let obj = Object::new();
    set(&obj, "xDesc", &JsValue::from_str(&d.x_desc))?;
    set(&obj, "yDesc", &JsValue::from_str(&d.y_desc))?;
    let legend: Array = d.legend.iter().map(|s| JsValue::from_str(s)).collect();
    set(&obj, "legend", &legend)?;
    Ok(obj)
}

/// Sizes `canvas` as `style` says, draws with `draw` on it in that style and presents the
/// result; returns the drawn texts.
fn draw_on(
    canvas: &JsValue,
    style: &JsValue,
    draw: impl FnOnce(
        &DrawingArea<CanvasBackend, plotters::coord::Shift>,
        &chart::Style,
    ) -> Result<chart::Drawn, chart::ChartError>,
) -> Result<Object, JsError> {
    let opts = options(style)?;
    let element = canvas_element(canvas)?;
    if let Some((w, h)) = opts.size {
        if element.width() != w {
            element.set_width(w);
        }
        if element.height() != h {
            element.set_height(h);
        }
    }
    let area = CanvasBackend::with_canvas_object(element)
        .ok_or_else(|| throw("the <canvas> has no 2d context"))?
        .into_drawing_area();
    let drawn = draw(&area, &opts.style).or_throw()?;
    area.present().or_throw()?;
    drawn_js(&drawn)
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
/// `HTMLCanvasElement` or the id of one), at the canvas' own size or `style`'s (see the
/// module header); returns `{xDesc, yDesc, legend}`.
#[wasm_bindgen(js_name = drawDauChart)]
pub fn draw_dau_chart(
    canvas: JsValue,
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
    draw_on(&canvas, &style, |a, s| {
        chart::draw_dau(a, title, &labels, &e, s)
    })
}

/// Draws a streak histogram (`BITLENS.STREAKHIST`: element `k − 1` = users set in exactly the
/// last `k` days) on `canvas` as bars.
#[wasm_bindgen(js_name = drawStreakChart)]
pub fn draw_streak_chart(
    canvas: JsValue,
    hist: Vec<f64>,
    title: &str,
    style: JsValue,
) -> Result<Object, JsError> {
    let hist = counts(&hist);
    draw_on(&canvas, &style, |a, s| {
        chart::draw_streak_histogram(a, title, &hist, s)
    })
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
    draw_on(&canvas, &style, |a, s| {
        chart::draw_retention(a, title, &labels, &rows, s)
    })
}

/// Draws a value distribution (`BITLENS.ENUMDIST` counts, [`Engine::enum_distribution`]) on
/// `canvas` as bars, up to the last non-zero value.
#[wasm_bindgen(js_name = drawEnumChart)]
pub fn draw_enum_chart(
    canvas: JsValue,
    hist: Vec<f64>,
    title: &str,
    style: JsValue,
) -> Result<Object, JsError> {
    let hist = counts(&hist);
    draw_on(&canvas, &style, |a, s| {
        chart::draw_enum_distribution(a, title, &hist, s)
    })
}

/// An SVG document (`width` × `height` pixels) mapping a nearby-shops search: the circle of
/// `radius_m` metres around (`lon`, `lat`) in degrees, and the result points given as
/// `coords = [lon0, lat0, lon1, lat1, …]` (degrees), the first `highlight` of them (the page on
/// screen) emphasised. Axes in kilometres east / north of the centre. `style` as for the
/// canvas charts (its `width`/`height` are ignored: the SVG is `width` × `height`). Needs the
/// page's DOM (plotters measures text there), no engine.
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
    style: JsValue,
) -> Result<String, JsError> {
    let opts = options(&style)?;
    let points: Vec<(f64, f64)> = coords.chunks_exact(2).map(|c| (c[0], c[1])).collect();
    chart::nearby_svg(
        title,
        (lon, lat),
        radius_m,
        &points,
        highlight as usize,
        width,
        height,
        &opts.style,
    )
    .or_throw()
}
