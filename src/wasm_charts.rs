//! Engagement charts drawn on an HTML `<canvas>` (wasm32 only, browser only: plotters measures
//! text through the DOM). Each `draw*Chart` method renders one chart of [`crate::chart`] onto
//! the canvas given (an `HTMLCanvasElement` or the id of one in the document), at the canvas' own `width` × `height` pixels, and
//! returns the numbers it drew as plain JS arrays (for tables, screen readers and tests):
//!
//! ```js
//! const e = engine.drawDauChart('dau', ['stats:active:20240501', 'stats:active:20240502']);
//! e.dau;   // [5123, 4987] — also e.labels, e.wau, e.mau, e.stickiness
//! engine.drawStreakChart('streaks', keys);           // [users on a 1-day streak, 2-day, …]
//! engine.drawRetentionChart('ret', keys, 7, 7);       // [[size, back d+1, …, d+7], …] (null past the end)
//! engine.drawEnumChart('lvl', 'stats:level:20240502', 4, 'stats:active:20240502'); // 16 counts
//! ```
//!
//! The arrays are the replies of the matching `BITLENS.*` commands (`BITLENS.DAU`,
//! `BITLENS.ROLLING 7|30`, `BITLENS.STREAKHIST`, `BITLENS.RETENTION`, `BITLENS.ENUMDIST`).
//! Missing daily keys are empty days; a key holding another type, a missing canvas, or (for
//! `drawEnumChart`) a missing field key throw an `Error`.

use js_sys::{Array, Object, Reflect};
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::analytics::windows::DayBitmaps;
use crate::analytics::{self, enums};
use crate::chart;
use crate::wasm::Engine;

fn js_err<E: std::fmt::Display>(e: E) -> JsError {
    JsError::new(&e.to_string())
}

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
        .ok_or_else(|| JsError::new(&format!("no <canvas> {canvas:?}")))
}

fn present(
    area: &DrawingArea<CanvasBackend, plotters::coord::Shift>,
    drawn: Result<(), chart::ChartError>,
) -> Result<(), JsError> {
    drawn.map_err(js_err)?;
    area.present().map_err(js_err)
}

fn numbers(v: &[u64]) -> Array {
    v.iter().map(|&n| JsValue::from_f64(n as f64)).collect()
}

fn set(obj: &Object, name: &str, value: &JsValue) -> Result<(), JsError> {
    Reflect::set(obj, &JsValue::from_str(name), value)
        .map(|_| ())
        .map_err(|_| JsError::new("cannot build result object"))
}

#[wasm_bindgen]
impl Engine {
    /// Draws daily actives with rolling 7/30-day actives of the daily bitmaps `keys`
    /// (chronological) on `canvas`; returns `{labels, dau, wau, mau, stickiness}`
    /// (dates as `YYYY-MM-DD`, counts as numbers, stickiness = dau/mau in 0..1).
    #[wasm_bindgen(js_name = drawDauChart)]
    pub fn draw_dau_chart(
        &self,
        canvas: JsValue,
        keys: Vec<String>,
        title: Option<String>,
    ) -> Result<Object, JsError> {
        let e = DayBitmaps::load(&self.ks, &keys)
            .map_err(js_err)?
            .engagement();
        let labels: Vec<String> = keys
            .iter()
            .map(|k| analytics::date_label(k.as_bytes()))
            .collect();
        let area = drawing_area(&canvas)?;
        let title = title.unwrap_or_else(|| "Daily actives".into());
        present(&area, chart::draw_dau(&area, &title, &labels, &e))?;
        let obj = Object::new();
        let l: Array = labels.iter().map(|s| JsValue::from_str(s)).collect();
        set(&obj, "labels", &l)?;
        set(&obj, "dau", &numbers(&e.dau))?;
        set(&obj, "wau", &numbers(&e.wau))?;
        set(&obj, "mau", &numbers(&e.mau))?;
        let st: Array = e.stickiness.iter().map(|&f| JsValue::from_f64(f)).collect();
        set(&obj, "stickiness", &st)?;
        Ok(obj)
    }

    /// Draws the streak histogram (`BITLENS.STREAKHIST keys…`, the last key is "today") on
    /// `canvas`; returns it: element `k − 1` = users set in exactly the last `k` keys.
    #[wasm_bindgen(js_name = drawStreakChart)]
    pub fn draw_streak_chart(
        &self,
        canvas: JsValue,
        keys: Vec<String>,
        title: Option<String>,
    ) -> Result<Array, JsError> {
        let hist = DayBitmaps::load(&self.ks, &keys)
            .map_err(js_err)?
            .streak_histogram();
        let area = drawing_area(&canvas)?;
        let title = title.unwrap_or_else(|| "Current streaks".into());
        present(&area, chart::draw_streak_histogram(&area, &title, &hist))?;
        Ok(numbers(&hist))
    }

    /// Draws the retention heatmap (`BITLENS.RETENTION lookback horizon keys…`) on canvas
    /// `canvasId`, rows labelled by cohort date; returns one array per cohort day:
    /// `[cohort size, back on d+1, …, back on d+horizon]`, `null` past the last key.
    #[wasm_bindgen(js_name = drawRetentionChart)]
    pub fn draw_retention_chart(
        &self,
        canvas: JsValue,
        keys: Vec<String>,
        lookback: u32,
        horizon: u32,
        title: Option<String>,
    ) -> Result<Array, JsError> {
        let rows = DayBitmaps::load(&self.ks, &keys)
            .map_err(js_err)?
            .retention(lookback as usize, horizon as usize);
        let labels: Vec<String> = rows
            .iter()
            .map(|r| analytics::date_label(keys[r.day].as_bytes()))
            .collect();
        let area = drawing_area(&canvas)?;
        let title = title.unwrap_or_else(|| "Retention of new actives".into());
        present(&area, chart::draw_retention(&area, &title, &labels, &rows))?;
        Ok(rows
            .iter()
            .map(|r| {
                let row = Array::new();
                row.push(&JsValue::from_f64(r.size as f64));
                for v in &r.returned {
                    row.push(&v.map_or(JsValue::NULL, |n| JsValue::from_f64(n as f64)));
                }
                JsValue::from(row)
            })
            .collect())
    }

    /// Draws the distribution of the `u<width>` BITFIELD values in `key` (`BITLENS.ENUMDIST
    /// key u<width> [AMONG among]`) on `canvas`: over the users set in bitmap `among`
    /// when given, else over every field. Returns the `2^width` counts. Throws when `key` does
    /// not exist (`no key …`) or `width` is not in 1..=16.
    #[wasm_bindgen(js_name = drawEnumChart)]
    pub fn draw_enum_chart(
        &self,
        canvas: JsValue,
        key: &str,
        width: u32,
        among: Option<String>,
        title: Option<String>,
    ) -> Result<Array, JsError> {
        if !(1..=16).contains(&width) {
            return Err(JsError::new("field width must be 1..16"));
        }
        if self.ks.get(key.as_bytes()).is_none() {
            return Err(JsError::new(&format!("no key {key:?}")));
        }
        let bytes = analytics::bitmap(&self.ks, key.as_bytes()).map_err(js_err)?;
        let hist = match &among {
            Some(a) => {
                let m = analytics::bitmap(&self.ks, a.as_bytes()).map_err(js_err)?;
                enums::distribution_among(&bytes, width, &m)
            }
            None => enums::distribution(&bytes, width, None),
        };
        let area = drawing_area(&canvas)?;
        let title = title.unwrap_or_else(|| match &among {
            Some(a) => format!("{key} among {a}"),
            None => key.to_string(),
        });
        present(&area, chart::draw_enum_distribution(&area, &title, &hist))?;
        Ok(numbers(&hist))
    }
}
