//! Engagement charts drawn with plotters, generic over the [`DrawingBackend`] so the CLI can
//! write SVG (the `*_svg` functions) and the browser panel can draw on a canvas
//! (`plotters-canvas`) with the same code:
//! - [`draw_dau`]: daily actives with rolling 7- and 30-day actives (lines, dated x axis);
//! - [`draw_streak_histogram`]: users per current streak length (bars);
//! - [`draw_retention`]: retention cohort heatmap (percent of each cohort back on day +t);
//! - [`draw_enum_distribution`]: users per value of a `u<w>` field (bars).
//!
//! Every function takes the plain results of [`crate::analytics`], draws the whole area it is
//! given (background, caption, labelled axes, data) and sizes fonts for a dashboard panel of
//! about 600–1000 × 300–500 pixels. Zero-height bars are not drawn; retention cells past the
//! last day are left empty. Colours are public so that tests and the panel legend agree.
//!
//! From a keyspace to an SVG file:
//! ```
//! use bitlens::analytics::{self, daily};
//! # let mut ks = bitlens::Keyspace::new();
//! # for d in 1..=3u8 {
//! #     let v = bitlens::Value::String(bitlens::string::RedisString::from_bytes(vec![0xf0 >> d]));
//! #     ks.set(format!("stats:active:2024050{d}").into_bytes(), v);
//! # }
//! let keys = analytics::string_keys_matching(&ks, b"stats:active:*"); // sorted = chronological
//! let labels: Vec<String> = keys.iter().map(|k| analytics::date_label(k)).collect();
//! let days = analytics::bitmaps(&ks, &keys)?;
//! let svg = bitlens::chart::dau_svg("Daily actives", &labels, &daily::engagement(&days), 900, 400)?;
//! assert!(svg.contains("2024-05-01"));
//! let hist = daily::streak_histogram(&days);
//! assert_eq!(hist, vec![1, 1, 2]); // streak of 1 day: user 6; 2 days: user 5; 3 days: users 3, 4
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::analytics::daily::{CohortRow, Engagement};

/// Line colour of daily actives.
pub const DAU_COLOR: RGBColor = RGBColor(0x1f, 0x77, 0xb4);
/// Line colour of rolling 7-day actives.
pub const WAU_COLOR: RGBColor = RGBColor(0xff, 0x7f, 0x0e);
/// Line colour of rolling 30-day actives.
pub const MAU_COLOR: RGBColor = RGBColor(0x2c, 0xa0, 0x2c);
/// Fill colour of histogram bars.
pub const BAR_COLOR: RGBColor = RGBColor(0x44, 0x6e, 0xa8);
/// Heatmap colour of 0 % retention (cells interpolate to [`HEAT_HIGH`] at 100 %).
pub const HEAT_LOW: RGBColor = RGBColor(0xf1, 0xf6, 0xfc);
/// Heatmap colour of 100 % retention.
pub const HEAT_HIGH: RGBColor = RGBColor(0x08, 0x30, 0x6b);

const FONT: &str = "sans-serif";
const CAPTION_SIZE: u32 = 22;
const LABEL_SIZE: u32 = 14;
const DESC_SIZE: u32 = 15;

/// A chart could not be drawn (backend or layout error), with plotters' message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChartError(pub String);

impl std::fmt::Display for ChartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "chart: {}", self.0)
    }
}

impl std::error::Error for ChartError {}

fn err<E: std::fmt::Display>(e: E) -> ChartError {
    ChartError(e.to_string())
}

/// A y-axis upper bound a little above `max` (at least 1) so the top line/bar is not clipped.
fn y_top(max: u64) -> u64 {
    (max + max / 10).max(max + 1)
}

/// Compact count labels for axes: `950`, `12.5k`, `3.2M`.
pub fn format_count(v: u64) -> String {
    match v {
        0..=9_999 => v.to_string(),
        10_000..=999_999 => trim(format!("{:.1}k", v as f64 / 1e3)),
        1_000_000..=999_999_999 => trim(format!("{:.1}M", v as f64 / 1e6)),
        _ => trim(format!("{:.1}G", v as f64 / 1e9)),
    }
}

fn trim(s: String) -> String {
    s.replace(".0k", "k")
        .replace(".0M", "M")
        .replace(".0G", "G")
}

/// Draws daily actives and rolling 7/30-day actives of [`Engagement`] `e` as three lines over
/// days labelled by `labels` (one per key, e.g. [`crate::analytics::date_label`]s).
/// `labels.len()` must equal `e.dau.len()`.
pub fn draw_dau<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    labels: &[String],
    e: &Engagement,
) -> Result<(), ChartError> {
    area.fill(&WHITE).map_err(err)?;
    let n = e.dau.len();
    if labels.len() != n || e.wau.len() != n || e.mau.len() != n {
        return Err(ChartError("labels and series lengths differ".into()));
    }
    let ymax = e
        .dau
        .iter()
        .chain(&e.wau)
        .chain(&e.mau)
        .copied()
        .max()
        .unwrap_or(0);
    let xmax = (n as i32 - 1).max(1);
    let mut chart = ChartBuilder::on(area)
        .caption(title, (FONT, CAPTION_SIZE))
        .margin(12)
        .margin_right(40)
        .x_label_area_size(48)
        .y_label_area_size(64)
        .build_cartesian_2d(0i32..xmax, 0u64..y_top(ymax))
        .map_err(err)?;
    let label_of = |i: &i32| {
        usize::try_from(*i)
            .ok()
            .and_then(|i| labels.get(i))
            .cloned()
            .unwrap_or_default()
    };
    chart
        .configure_mesh()
        .x_labels(n.clamp(2, 8))
        .x_label_formatter(&label_of)
        .y_label_formatter(&|v| format_count(*v))
        .x_desc("day")
        .y_desc("users")
        .label_style((FONT, LABEL_SIZE))
        .axis_desc_style((FONT, DESC_SIZE))
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(err)?;
    for (name, series, color) in [
        ("DAU", &e.dau, DAU_COLOR),
        ("7-day actives", &e.wau, WAU_COLOR),
        ("30-day actives", &e.mau, MAU_COLOR),
    ] {
        chart
            .draw_series(LineSeries::new(
                series.iter().enumerate().map(|(i, &v)| (i as i32, v)),
                color.stroke_width(2),
            ))
            .map_err(err)?
            .label(name)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .label_font((FONT, LABEL_SIZE))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.4))
        .draw()
        .map_err(err)?;
    Ok(())
}

/// Draws bars `counts[i]` at x labels `x_label(i)`: the shared body of the two bar charts.
fn draw_bars<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    x_desc: &str,
    counts: &[u64],
    x_label: &dyn Fn(usize) -> String,
) -> Result<(), ChartError> {
    area.fill(&WHITE).map_err(err)?;
    // Integer ranges are closed in plotters: segments 0..=n−1 are the n bars.
    let n = counts.len().max(1) as u32;
    let ymax = counts.iter().copied().max().unwrap_or(0);
    let mut chart = ChartBuilder::on(area)
        .caption(title, (FONT, CAPTION_SIZE))
        .margin(12)
        .x_label_area_size(48)
        .y_label_area_size(64)
        .build_cartesian_2d((0u32..n - 1).into_segmented(), 0u64..y_top(ymax))
        .map_err(err)?;
    let fmt_x = |v: &SegmentValue<u32>| match v {
        SegmentValue::CenterOf(i) | SegmentValue::Exact(i) if (*i as usize) < counts.len() => {
            x_label(*i as usize)
        }
        _ => String::new(),
    };
    chart
        .configure_mesh()
        .x_labels(counts.len().clamp(1, 16))
        .x_label_formatter(&fmt_x)
        .y_label_formatter(&|v| format_count(*v))
        .x_desc(x_desc)
        .y_desc("users")
        .label_style((FONT, LABEL_SIZE))
        .axis_desc_style((FONT, DESC_SIZE))
        .disable_x_mesh()
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(err)?;
    let gap = if counts.len() > 60 { 0 } else { 2 };
    chart
        .draw_series(
            counts
                .iter()
                .enumerate()
                .filter(|(_, &c)| c > 0)
                .map(|(i, &c)| {
                    let i = i as u32;
                    let mut r = Rectangle::new(
                        [(SegmentValue::Exact(i), 0), (SegmentValue::Exact(i + 1), c)],
                        BAR_COLOR.filled(),
                    );
                    r.set_margin(0, 0, gap, gap);
                    r
                }),
        )
        .map_err(err)?;
    Ok(())
}

/// Draws the streak histogram of [`crate::analytics::daily::streak_histogram`]: bar `k` (x
/// label `k`, in days) is the number of users whose current streak is `k` days (`hist[k − 1]`).
pub fn draw_streak_histogram<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    hist: &[u64],
) -> Result<(), ChartError> {
    draw_bars(area, title, "streak length (days)", hist, &|i| {
        (i + 1).to_string()
    })
}

/// Draws a `u<w>` value distribution of [`crate::analytics::enums`]: bar `v` is the number of
/// users with value `v`. Values above the largest one present are left out (so a `u16`
/// distribution with values up to 20 draws 21 bars).
pub fn draw_enum_distribution<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    hist: &[u64],
) -> Result<(), ChartError> {
    let last = hist.iter().rposition(|&c| c > 0).unwrap_or(0);
    let shown = &hist[..(last + 1).min(hist.len())];
    draw_bars(area, title, "value", shown, &|i| i.to_string())
}

/// Fill colour of a retention fraction in 0..=1 (linear from [`HEAT_LOW`] to [`HEAT_HIGH`]).
pub fn heat_color(fraction: f64) -> RGBColor {
    let f = fraction.clamp(0.0, 1.0);
    let mix = |a: u8, b: u8| (a as f64 + (b as f64 - a as f64) * f).round() as u8;
    RGBColor(
        mix(HEAT_LOW.0, HEAT_HIGH.0),
        mix(HEAT_LOW.1, HEAT_HIGH.1),
        mix(HEAT_LOW.2, HEAT_HIGH.2),
    )
}

/// The percentage printed in a retention cell: `returned / size`, rounded, e.g. `"42%"`.
pub fn retention_percent(returned: u64, size: u64) -> String {
    if size == 0 {
        "0%".into()
    } else {
        format!("{:.0}%", returned as f64 * 100.0 / size as f64)
    }
}

/// Draws the retention heatmap of [`crate::analytics::daily::retention`] rows: one row per
/// cohort (first cohort at the top, y label `row_labels[i] (n=size)`), one column per day
/// after (`+1 … +horizon`), each cell coloured by and labelled with the percentage of the
/// cohort back that day ([`retention_percent`]). Cells past the last day stay empty.
pub fn draw_retention<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    row_labels: &[String],
    rows: &[CohortRow],
) -> Result<(), ChartError> {
    area.fill(&WHITE).map_err(err)?;
    if row_labels.len() != rows.len() {
        return Err(ChartError("row labels and rows differ in length".into()));
    }
    let horizon = rows
        .iter()
        .map(|r| r.returned.len())
        .max()
        .unwrap_or(0)
        .max(1) as u32;
    let nrows = rows.len().max(1) as u32;
    let y_label = |r: usize| format!("{} (n={})", row_labels[r], format_count(rows[r].size));
    // Room for the longest row label (digits are about 0.64 em wide) plus the rotated axis
    // title, so the title never overlaps a label.
    let longest = (0..rows.len())
        .map(|r| y_label(r).chars().count())
        .max()
        .unwrap_or(0) as u32;
    let y_area = (LABEL_SIZE * longest * 66).div_ceil(100) + DESC_SIZE + 24;
    let mut chart = ChartBuilder::on(area)
        .caption(title, (FONT, CAPTION_SIZE))
        .margin(12)
        .x_label_area_size(48)
        .y_label_area_size(y_area.max(120))
        .build_cartesian_2d(
            (1u32..horizon).into_segmented(),
            (0u32..nrows - 1).into_segmented(),
        )
        .map_err(err)?;
    // Row r sits at y = nrows − 1 − r so that the first cohort is at the top.
    let row_at = |y: u32| rows.len().checked_sub(1 + y as usize);
    let fmt_y = |v: &SegmentValue<u32>| match v {
        SegmentValue::CenterOf(y) => row_at(*y).map(y_label).unwrap_or_default(),
        _ => String::new(),
    };
    let fmt_x = |v: &SegmentValue<u32>| match v {
        SegmentValue::CenterOf(t) if *t <= horizon => format!("+{t}"),
        _ => String::new(),
    };
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(horizon as usize)
        .y_labels(rows.len().clamp(1, 40))
        .x_label_formatter(&fmt_x)
        .y_label_formatter(&fmt_y)
        .x_desc("days after the cohort day")
        .y_desc("cohort")
        .label_style((FONT, LABEL_SIZE))
        .axis_desc_style((FONT, DESC_SIZE))
        .draw()
        .map_err(err)?;
    let cells: Vec<(u32, u32, u64, u64)> = rows
        .iter()
        .enumerate()
        .flat_map(|(r, row)| {
            let y = nrows - 1 - r as u32;
            row.returned
                .iter()
                .enumerate()
                .filter_map(move |(t, v)| v.map(|v| (t as u32 + 1, y, v, row.size)))
        })
        .collect();
    chart
        .draw_series(cells.iter().map(|&(x, y, v, size)| {
            let f = if size == 0 {
                0.0
            } else {
                v as f64 / size as f64
            };
            let mut r = Rectangle::new(
                [
                    (SegmentValue::Exact(x), SegmentValue::Exact(y)),
                    (SegmentValue::Exact(x + 1), SegmentValue::Exact(y + 1)),
                ],
                heat_color(f).filled(),
            );
            r.set_margin(1, 1, 1, 1);
            r
        }))
        .map_err(err)?;
    // Percent labels when the cells are big enough to hold them.
    let (w, h) = area.dim_in_pixel();
    let cell_w = w.saturating_sub(y_area.max(120) + 40) / horizon;
    let cell_h = h.saturating_sub(110) / nrows;
    if cell_w >= 30 && cell_h >= 14 {
        let size = (cell_h.min(cell_w / 3)).clamp(10, 14);
        chart
            .draw_series(cells.iter().map(|&(x, y, v, total)| {
                let f = if total == 0 {
                    0.0
                } else {
                    v as f64 / total as f64
                };
                let color: &'static RGBColor = if f > 0.5 { &WHITE } else { &BLACK };
                let style = TextStyle::from((FONT, size).into_font())
                    .color(color)
                    .pos(Pos::new(HPos::Center, VPos::Center));
                Text::new(
                    retention_percent(v, total),
                    (SegmentValue::CenterOf(x), SegmentValue::CenterOf(y)),
                    style,
                )
            }))
            .map_err(err)?;
    }
    Ok(())
}

/// Renders `draw` on a `width × height` SVG document and returns its text.
/// Metres east and north of `centre` for a point, in the local equirectangular projection
/// (degrees of longitude shrink with the cosine of the latitude); good to well under 1 % over
/// the few kilometres of a nearby-shops search.
fn local_metres(centre: (f64, f64), lon: f64, lat: f64) -> (f64, f64) {
    const M_PER_DEG: f64 = 111_195.0; // 2π × 6,371 km / 360
    let mut dlon = lon - centre.0;
    if dlon > 180.0 {
        dlon -= 360.0;
    } else if dlon < -180.0 {
        dlon += 360.0;
    }
    (
        dlon * M_PER_DEG * centre.1.to_radians().cos(),
        (lat - centre.1) * M_PER_DEG,
    )
}

/// Draws a nearby-shops search: the radius circle (`radius_m` metres) around `centre`
/// (longitude, latitude in degrees), the centre as a cross, and each result point
/// (longitude, latitude) as a dot; the first `highlight` points (the page on screen) larger and
/// darker. Axes are kilometres east and north of the centre, at equal scale.
pub fn draw_nearby<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    centre: (f64, f64),
    radius_m: f64,
    points: &[(f64, f64)],
    highlight: usize,
) -> Result<(), ChartError> {
    if !(radius_m.is_finite() && radius_m > 0.0) {
        return Err(ChartError(format!("radius {radius_m} m is not positive")));
    }
    area.fill(&WHITE).map_err(err)?;
    let r = radius_m / 1000.0 * 1.08;
    let mut chart = ChartBuilder::on(area)
        .caption(title, (FONT, CAPTION_SIZE))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(48)
        .build_cartesian_2d(-r..r, -r..r)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("km east")
        .y_desc("km north")
        .x_labels(5)
        .y_labels(5)
        .label_style((FONT, 14))
        .draw()
        .map_err(err)?;
    let rk = radius_m / 1000.0;
    let circle: Vec<(f64, f64)> = (0..=96)
        .map(|i| {
            let a = i as f64 / 96.0 * std::f64::consts::TAU;
            (rk * a.cos(), rk * a.sin())
        })
        .collect();
    chart
        .draw_series(LineSeries::new(circle, BLUE.stroke_width(2)))
        .map_err(err)?;
    let km = |&(lon, lat): &(f64, f64)| {
        let (x, y) = local_metres(centre, lon, lat);
        (x / 1000.0, y / 1000.0)
    };
    let (rest, page): (Vec<_>, Vec<_>) = points
        .iter()
        .enumerate()
        .partition(|(i, _)| *i >= highlight);
    chart
        .draw_series(
            rest.iter()
                .map(|(_, p)| Circle::new(km(p), 2, RGBColor(150, 150, 150).filled())),
        )
        .map_err(err)?;
    chart
        .draw_series(
            page.iter()
                .map(|(_, p)| Circle::new(km(p), 4, RGBColor(200, 40, 40).filled())),
        )
        .map_err(err)?;
    chart
        .draw_series(std::iter::once(Cross::new(
            (0.0, 0.0),
            7,
            BLACK.stroke_width(2),
        )))
        .map_err(err)?;
    Ok(())
}

/// [`draw_nearby`] as an SVG document of `width × height` pixels.
pub fn nearby_svg(
    title: &str,
    centre: (f64, f64),
    radius_m: f64,
    points: &[(f64, f64)],
    highlight: usize,
    width: u32,
    height: u32,
) -> Result<String, ChartError> {
    to_svg(width, height, |a| {
        draw_nearby(a, title, centre, radius_m, points, highlight)
    })
}

fn to_svg(
    width: u32,
    height: u32,
    draw: impl FnOnce(&DrawingArea<SVGBackend, Shift>) -> Result<(), ChartError>,
) -> Result<String, ChartError> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (width, height)).into_drawing_area();
        draw(&root)?;
        root.present().map_err(err)?;
    }
    Ok(out)
}

/// [`draw_dau`] as an SVG document of `width × height` pixels.
pub fn dau_svg(
    title: &str,
    labels: &[String],
    e: &Engagement,
    width: u32,
    height: u32,
) -> Result<String, ChartError> {
    to_svg(width, height, |a| draw_dau(a, title, labels, e))
}

/// [`draw_streak_histogram`] as an SVG document of `width × height` pixels.
pub fn streak_histogram_svg(
    title: &str,
    hist: &[u64],
    width: u32,
    height: u32,
) -> Result<String, ChartError> {
    to_svg(width, height, |a| draw_streak_histogram(a, title, hist))
}

/// [`draw_retention`] as an SVG document of `width × height` pixels.
pub fn retention_svg(
    title: &str,
    row_labels: &[String],
    rows: &[CohortRow],
    width: u32,
    height: u32,
) -> Result<String, ChartError> {
    to_svg(width, height, |a| {
        draw_retention(a, title, row_labels, rows)
    })
}

/// [`draw_enum_distribution`] as an SVG document of `width × height` pixels.
pub fn enum_distribution_svg(
    title: &str,
    hist: &[u64],
    width: u32,
    height: u32,
) -> Result<String, ChartError> {
    to_svg(width, height, |a| draw_enum_distribution(a, title, hist))
}
