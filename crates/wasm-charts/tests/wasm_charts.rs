//! The page's chart module in headless Chromium (plotters measures text through the DOM): each
//! chart function draws the numbers it is given, with one point per datum at the place the
//! numbers imply; bad arguments and styles are `Error`s that name what is wrong; the user-id rule
//! gives Java's `Math.abs(id.hashCode())`.

#![cfg(target_arch = "wasm32")]

use bitlens_wasm_charts::{
    dau_chart, enum_chart, java_user_offset, nearby_chart, retention_chart, streak_chart,
    ChartStyle,
};
use js_sys::{Array, Float64Array, Object, Reflect};
use tsify::Ts;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn get(obj: &(impl Into<JsValue> + Clone), name: &str) -> JsValue {
    Reflect::get(&obj.clone().into(), &JsValue::from_str(name)).unwrap()
}

/// `v` as a chart function's typed `style` argument.
fn ts(v: JsValue) -> Option<Ts<ChartStyle>> {
    Some(Ts::new_unchecked(v))
}

/// `points` of a chart as `[x, y, row, col]` quadruples.
fn points(chart: &(impl Into<JsValue> + Clone)) -> Vec<[f64; 4]> {
    let flat = get(chart, "points")
        .dyn_into::<Float64Array>()
        .unwrap()
        .to_vec();
    assert_eq!(flat.len() % 4, 0);
    flat.chunks_exact(4)
        .map(|c| [c[0], c[1], c[2], c[3]])
        .collect()
}

fn style(width: f64, height: f64) -> Option<Ts<ChartStyle>> {
    let s = Object::new();
    Reflect::set(&s, &"width".into(), &width.into()).unwrap();
    Reflect::set(&s, &"height".into(), &height.into()).unwrap();
    ts(s.into())
}

fn message(e: wasm_bindgen::JsError) -> String {
    let v: JsValue = e.into();
    Reflect::get(&v, &"message".into())
        .unwrap()
        .as_string()
        .unwrap()
}

#[wasm_bindgen_test]
fn dau_chart_draws_one_point_per_day_higher_for_more_users() {
    let labels: Vec<String> = (1..=5).map(|d| format!("2024-05-{d:02}")).collect();
    let dau = vec![10.0, 40.0, 20.0, 0.0, 30.0];
    let c = dau_chart(
        labels,
        dau.clone(),
        vec![10.0, 45.0, 55.0, 55.0, 70.0],
        vec![10.0, 45.0, 55.0, 55.0, 70.0],
        "Daily actives",
        style(640.0, 320.0),
    )
    .unwrap();
    let svg = get(&c, "svg").as_string().unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("2024-05-03") && svg.contains("Daily actives"));
    assert_eq!(get(&c, "width").as_f64(), Some(640.0));
    assert_eq!(get(&c, "height").as_f64(), Some(320.0));
    let legend: Vec<String> = get(&c, "legend")
        .dyn_into::<Array>()
        .unwrap()
        .iter()
        .map(|v| v.as_string().unwrap())
        .collect();
    assert_eq!(legend.len(), 3, "{legend:?}");
    // The DAU series' points: one per day, left to right; SVG y grows downwards, so more
    // users is a smaller y.
    let p: Vec<[f64; 4]> = points(&c)
        .into_iter()
        .filter(|q| q[3] == 0.0)
        .take(5)
        .collect();
    assert_eq!(
        p.iter().map(|q| q[2]).collect::<Vec<_>>(),
        vec![0.0, 1.0, 2.0, 3.0, 4.0]
    );
    assert!(p.windows(2).all(|w| w[0][0] < w[1][0]));
    assert!(p[1][1] < p[4][1] && p[4][1] < p[2][1] && p[2][1] < p[0][1] && p[0][1] < p[3][1]);
    let plot: Object = get(&c, "plot").dyn_into().unwrap();
    for q in &p {
        assert!(
            q[0] >= get(&plot, "left").as_f64().unwrap()
                && q[0] <= get(&plot, "right").as_f64().unwrap()
        );
    }
}

#[wasm_bindgen_test]
fn bars_retention_and_map() {
    let c = streak_chart(vec![5.0, 0.0, 2.0], "Streaks", None).unwrap();
    assert_eq!(get(&c, "width").as_f64(), Some(900.0), "the default size");
    let bars = points(&c);
    assert_eq!(bars.len(), 3);
    assert!(bars[0][1] < bars[2][1], "5 users stand higher than 2");
    let c = enum_chart(vec![1.0, 3.0, 0.0, 0.0], "Levels", None).unwrap();
    assert_eq!(points(&c).len(), 2, "bars up to the last non-zero value");
    // Two cohorts, horizon 2: the second's last day is unknown (NaN), so 3 cells.
    let c = retention_chart(
        vec!["2024-05-01".into(), "2024-05-02".into()],
        vec![10.0, 5.0, 2.0, 8.0, 4.0, f64::NAN],
        2,
        "Retention",
        None,
    )
    .unwrap();
    let cells = points(&c);
    assert_eq!(cells.len(), 3);
    assert!(cells.iter().any(|q| q[2] == 1.0 && q[3] == 0.0));
    assert!(!cells.iter().any(|q| q[2] == 1.0 && q[3] == 1.0));
    let c = nearby_chart(
        121.47,
        31.23,
        2000.0,
        vec![121.47, 31.23, 121.48, 31.24],
        1,
        "Shops",
        None,
    )
    .unwrap();
    let shops = points(&c);
    assert_eq!(shops.len(), 2);
    assert!(
        shops[1][0] > shops[0][0] && shops[1][1] < shops[0][1],
        "the second shop is north-east"
    );
}

#[wasm_bindgen_test]
fn bad_arguments_are_errors_naming_what_is_wrong() {
    let e = dau_chart(
        vec!["a".into()],
        vec![1.0, 2.0],
        vec![1.0],
        vec![1.0],
        "t",
        None,
    )
    .unwrap_err();
    assert_eq!(message(e), "labels, dau, wau and mau differ in length");
    let e = retention_chart(vec!["a".into()], vec![1.0, 2.0], 2, "t", None).unwrap_err();
    assert_eq!(message(e), "rows must hold 1 + horizon numbers per label");
    let s = Object::new();
    Reflect::set(&s, &"scale".into(), &9.0.into()).unwrap();
    assert_eq!(
        message(streak_chart(vec![1.0], "t", ts(s.into())).unwrap_err()),
        "style.scale 9 is not in 0.25..8"
    );
    let s = Object::new();
    Reflect::set(&s, &"width".into(), &100.into()).unwrap();
    assert_eq!(
        message(streak_chart(vec![1.0], "t", ts(s.into())).unwrap_err()),
        "style.width and style.height go together"
    );
    assert_eq!(
        message(streak_chart(vec![1.0], "t", style(0.5, 10.0)).unwrap_err()),
        "style.width 0.5 is not a whole number of pixels in 1..16384"
    );
    let colors = Object::new();
    Reflect::set(&colors, &"bar".into(), &"no colour".into()).unwrap();
    let s = Object::new();
    Reflect::set(&s, &"colors".into(), &colors).unwrap();
    assert!(
        message(streak_chart(vec![1.0], "t", ts(s.into())).unwrap_err())
            .starts_with("style.colors.bar: ")
    );
    assert_eq!(
        message(streak_chart(vec![1.0], "t", ts("big".into())).unwrap_err()),
        "style must be an object"
    );
    // A style field of the wrong type is named, and the Error's kind says it is an argument.
    let words = Object::new();
    Reflect::set(&words, &"day".into(), &5.into()).unwrap();
    let s = Object::new();
    Reflect::set(&s, &"words".into(), &words).unwrap();
    let e: JsValue = streak_chart(vec![1.0], "t", ts(s.into()))
        .unwrap_err()
        .into();
    let text = Reflect::get(&e, &"message".into())
        .unwrap()
        .as_string()
        .unwrap();
    assert!(text.starts_with("style.words: invalid type"), "{text}");
    assert_eq!(Reflect::get(&e, &"kind".into()).unwrap(), "argument");
}

#[wasm_bindgen_test]
fn java_user_offsets_are_javas() {
    // "hello".hashCode() = 99162322; "polygenelubricants".hashCode() = Integer.MIN_VALUE.
    assert_eq!(java_user_offset("hello"), Some(99162322.0));
    assert_eq!(java_user_offset(""), Some(0.0));
    // "Aa" and "BB" collide in Java (2112).
    assert_eq!(java_user_offset("Aa"), Some(2112.0));
    assert_eq!(java_user_offset("BB"), Some(2112.0));
    assert_eq!(java_user_offset("polygenelubricants"), None);
}
