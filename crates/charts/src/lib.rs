//! Engagement charts drawn with plotters' SVG backend, the one backend of the CLI and the panel
//! (the panel paints the SVG on a canvas at `devicePixelRatio`; so the wasm module holds one
//! copy of plotters):
//! - [`dau_chart`]: daily actives with rolling 7- and 30-day actives (lines, dated x axis);
//! - [`streak_chart`]: users per current streak length (bars);
//! - [`retention_chart`]: retention cohort heatmap (percent of each cohort back on day +t);
//! - [`enum_chart`]: users per value of a `u<w>` field (bars);
//! - [`nearby_chart`]: a nearby-shops search as a map in kilometres.
//!
//! Every function takes the plain results of [`bitlens::analytics`], a size in pixels and a
//! [`Style`], draws the whole area (background, caption, labelled axes, data) and returns a
//! [`Chart`]: the SVG text and what it [`Drawn`]: the axis titles and legend, the plot area's
//! pixel rectangle with its data ranges ([`Plot`]), and one [`Point`] per datum (its pixel
//! position and the row / column of the chart's numbers it shows), so a page can answer a hover
//! or a key press with the exact value. The [`Style`] carries
//! - the colours ([`Palette`]: the panel passes its theme's, [`Palette::LIGHT`] by default),
//! - the words of axis titles and legends ([`Words`]: the panel passes its i18n table's),
//! - the compact number style of tick labels ([`Numbers`]: `12.5k` in English, `1.3万` in
//!   Chinese),
//! - `scale`, device pixels per CSS pixel: fonts, margins and strokes are sized in CSS pixels
//!   and multiplied by it, so an SVG drawn for a canvas backed at `devicePixelRatio` has 14 CSS
//!   px labels.
//!
//! Layout follows the area's width in CSS pixels (`width / scale`): below [`NARROW`] CSS px
//! labels are 13 px, dates drop their year, and the number of tick labels is chosen so they do
//! not overlap; the caption shrinks (down to 15 px) to fit the width, then wraps onto more
//! lines (between words, or between CJK characters), never cut. Zero-height bars are not drawn;
//! retention cells past the last day are left empty. The default colours are public so that
//! tests and the panel legend agree.
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
//! let svg = bitlens_charts::dau_svg("Daily actives", &labels, &daily::engagement(&days), 900, 400)?;
//! assert!(svg.contains("2024-05-01"));
//! let hist = daily::streak_histogram(&days);
//! assert_eq!(hist, vec![1, 1, 2]); // streak of 1 day: user 6; 2 days: user 5; 3 days: users 3, 4
//! let chart = bitlens_charts::streak_chart("Streaks", &hist, 600, 300, &Default::default())?;
//! assert_eq!(chart.drawn.points.len(), 3); // one per bar, left to right
//! assert!(chart.drawn.points[0].x < chart.drawn.points[2].x);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use plotters::chart::MeshStyle;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use bitlens::analytics::daily::{CohortRow, Engagement};

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

/// Below this width in CSS pixels a chart uses its narrow layout (phones).
pub const NARROW: f64 = 480.0;

const FONT: &str = "sans-serif";
/// Font sizes in CSS pixels.
const CAPTION_SIZE: f64 = 20.0;
/// The smallest caption size before it wraps.
const CAPTION_MIN: f64 = 15.0;
const LABEL_SIZE: f64 = 14.0;
const LABEL_NARROW: f64 = 13.0;
/// Font size (px) text is measured at, then scaled (see `Layout::text_width_at_least`).
const MEASURE_SIZE: f64 = 8.0;

/// The colours of a chart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Palette {
    /// The whole area's fill.
    pub background: RGBColor,
    /// Caption, tick labels, axis titles, axis lines, legend text.
    pub text: RGBColor,
    /// Mesh lines.
    pub grid: RGBColor,
    /// Lines of daily, rolling 7-day and rolling 30-day actives.
    pub series: [RGBColor; 3],
    /// Histogram bars.
    pub bar: RGBColor,
    /// Heatmap at 0 % retention.
    pub heat_low: RGBColor,
    /// Heatmap at 100 % retention.
    pub heat_high: RGBColor,
    /// Nearby map: the points of the page on screen.
    pub highlight: RGBColor,
    /// Nearby map: the other points.
    pub point: RGBColor,
    /// Nearby map: the radius circle.
    pub circle: RGBColor,
}

impl Palette {
    /// The light palette (white background), the CLI's and the default.
    pub const LIGHT: Palette = Palette {
        background: WHITE,
        text: BLACK,
        grid: RGBColor(0xcc, 0xcc, 0xcc),
        series: [DAU_COLOR, WAU_COLOR, MAU_COLOR],
        bar: BAR_COLOR,
        heat_low: HEAT_LOW,
        heat_high: HEAT_HIGH,
        highlight: RGBColor(200, 40, 40),
        point: RGBColor(150, 150, 150),
        circle: BLUE,
    };

    /// Fill colour of a retention fraction in 0..=1 (linear from `heat_low` to `heat_high`).
    pub fn heat(&self, fraction: f64) -> RGBColor {
        let f = fraction.clamp(0.0, 1.0);
        let mix = |a: u8, b: u8| (a as f64 + (b as f64 - a as f64) * f).round() as u8;
        let (lo, hi) = (self.heat_low, self.heat_high);
        RGBColor(mix(lo.0, hi.0), mix(lo.1, hi.1), mix(lo.2, hi.2))
    }
}

/// A CSS colour as the page's computed style gives it: `#rgb`, `#rrggbb`, `#rrggbbaa`,
/// `rgb(r, g, b)` or `rgba(r, g, b, a)` (alpha ignored; space-separated `rgb(r g b / a)` too).
/// Errors quote the text.
pub fn css_color(text: &str) -> Result<RGBColor, ChartError> {
    let t = text.trim();
    let bad = || {
        ChartError(format!(
            "not a colour: {text:?} (expected #rrggbb or rgb(r, g, b))"
        ))
    };
    if let Some(hex) = t.strip_prefix('#') {
        let digit = |i: usize| {
            hex.get(i..i + 1)
                .and_then(|d| u8::from_str_radix(d, 16).ok())
                .ok_or_else(bad)
        };
        return match hex.len() {
            3 | 4 => Ok(RGBColor(digit(0)? * 17, digit(1)? * 17, digit(2)? * 17)),
            6 | 8 => {
                let byte = |i: usize| Ok::<u8, ChartError>(digit(i)? * 16 + digit(i + 1)?);
                Ok(RGBColor(byte(0)?, byte(2)?, byte(4)?))
            }
            _ => Err(bad()),
        };
    }
    let inner = t
        .strip_prefix("rgba(")
        .or_else(|| t.strip_prefix("rgb("))
        .and_then(|r| r.strip_suffix(')'))
        .ok_or_else(bad)?;
    let parts: Vec<&str> = inner
        .split(|c: char| c == ',' || c == '/' || c.is_whitespace())
        .filter(|p| !p.is_empty())
        .collect();
    if !(3..=4).contains(&parts.len()) {
        return Err(bad());
    }
    let channel = |p: &str| {
        p.parse::<f64>()
            .ok()
            .filter(|v| (0.0..=255.0).contains(v))
            .map(|v| v.round() as u8)
            .ok_or_else(bad)
    };
    Ok(RGBColor(
        channel(parts[0])?,
        channel(parts[1])?,
        channel(parts[2])?,
    ))
}

impl Default for Palette {
    fn default() -> Self {
        Palette::LIGHT
    }
}

/// The words a chart writes besides its caption: axis titles and legend names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Words {
    /// x axis of the DAU chart.
    pub day: String,
    /// y axis of the DAU chart and of the bar charts.
    pub users: String,
    /// Legend name of the daily-actives line.
    pub dau: String,
    /// Legend name of the rolling 7-day line.
    pub wau: String,
    /// Legend name of the rolling 30-day line.
    pub mau: String,
    /// x axis of the streak histogram.
    pub streak_days: String,
    /// x axis of the value distribution.
    pub value: String,
    /// x axis of the retention heatmap.
    pub days_after: String,
    /// y axis of the retention heatmap.
    pub cohort: String,
    /// x axis of the nearby map.
    pub km_east: String,
    /// y axis of the nearby map.
    pub km_north: String,
}

impl Default for Words {
    /// The English words.
    fn default() -> Self {
        Words {
            day: "day".into(),
            users: "users".into(),
            dau: "DAU".into(),
            wau: "7-day actives".into(),
            mau: "30-day actives".into(),
            streak_days: "streak length (days)".into(),
            value: "value".into(),
            days_after: "days after the cohort day".into(),
            cohort: "cohort".into(),
            km_east: "km east".into(),
            km_north: "km north".into(),
        }
    }
}

/// Compact count labels of one locale: below 10,000 the plain digits, above it the count in
/// the largest unit it reaches, with one decimal (`12.5k`, `3.2M`; `1.3万`, `2.1亿`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Numbers {
    /// (unit size, suffix), smallest first.
    pub units: &'static [(u64, &'static str)],
}

/// The number styles by language tag prefix; the first is the default.
const NUMBER_STYLES: &[(&str, Numbers)] = &[
    (
        "en",
        Numbers {
            units: &[(1_000, "k"), (1_000_000, "M"), (1_000_000_000, "G")],
        },
    ),
    (
        "zh",
        Numbers {
            units: &[(10_000, "万"), (100_000_000, "亿")],
        },
    ),
];

impl Numbers {
    /// The style of a language tag (`zh`, `zh-CN`, `en-US`, …); English for any other.
    pub fn for_locale(tag: &str) -> Numbers {
        let tag = tag.to_ascii_lowercase();
        NUMBER_STYLES
            .iter()
            .find(|(prefix, _)| tag.starts_with(prefix))
            .unwrap_or(&NUMBER_STYLES[0])
            .1
    }

    /// `v` as a compact label.
    pub fn count(&self, v: u64) -> String {
        let unit = self
            .units
            .iter()
            .rev()
            .find(|(size, _)| v >= *size && v >= 10_000);
        match unit {
            None => v.to_string(),
            Some((size, suffix)) => {
                let s = format!("{:.1}", v as f64 / *size as f64);
                format!("{}{suffix}", s.strip_suffix(".0").unwrap_or(&s))
            }
        }
    }
}

impl Default for Numbers {
    fn default() -> Self {
        NUMBER_STYLES[0].1
    }
}

/// How a chart is drawn: colours, words, number style and the device-pixel scale.
#[derive(Debug, Clone, PartialEq)]
pub struct Style {
    /// Colours.
    pub palette: Palette,
    /// Axis titles and legend names.
    pub words: Words,
    /// Tick label number style.
    pub numbers: Numbers,
    /// Device pixels per CSS pixel (an SVG painted on a canvas backed at `devicePixelRatio`
    /// passes that ratio; 1 for an SVG shown at its size). Values outside 0.25..=8 are clamped.
    pub scale: f64,
    /// A further factor for text sizes only (1 by default).
    pub text_scale: f64,
}

impl Default for Style {
    fn default() -> Self {
        Style {
            palette: Palette::LIGHT,
            words: Words::default(),
            numbers: Numbers::default(),
            scale: 1.0,
            text_scale: 1.0,
        }
    }
}

/// Where a chart drew its plot and its data, in the drawing's pixels (device pixels: CSS pixels
/// × [`Style::scale`]), for the page to answer a hover or a key press with the exact value.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plot {
    /// The plot area (inside the axes): left, top, right, bottom edges.
    pub left: i32,
    /// Top edge of the plot area.
    pub top: i32,
    /// Right edge of the plot area.
    pub right: i32,
    /// Bottom edge of the plot area.
    pub bottom: i32,
    /// The data range along x at the left and right edges (days, bars, days after, km east).
    pub x_range: (f64, f64),
    /// The data range along y at the bottom and top edges (users, cohorts, km north).
    pub y_range: (f64, f64),
}

/// One data point of a drawn chart: where it is and which of the chart's numbers it shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Point {
    /// Pixel position (device pixels from the drawing's top left).
    pub x: i32,
    /// Pixel position, downwards.
    pub y: i32,
    /// The row of the chart's numbers: the day (DAU), the bar (histograms), the cohort
    /// (retention), the result (nearby map, in the order the points were given).
    pub row: u32,
    /// The column within the row: 0, or the day after the cohort day minus 1 (retention).
    pub col: u32,
}

/// The texts a chart drew besides its caption and tick labels, and where its data went (for
/// the page to expose and to answer hovers).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Drawn {
    /// The x axis title.
    pub x_desc: String,
    /// The y axis title.
    pub y_desc: String,
    /// The legend names, in order (empty when the chart has no legend).
    pub legend: Vec<String>,
    /// The plot area.
    pub plot: Plot,
    /// The data points, in row order (row-major for retention; zero bars included).
    pub points: Vec<Point>,
}

/// A drawn chart: the SVG document and what it drew.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    /// The SVG document (`width × height` pixels, plotters' SVG backend).
    pub svg: String,
    /// Axis titles, legend, plot area and data points.
    pub drawn: Drawn,
}

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

/// Compact count labels for axes in English: `950`, `12.5k`, `3.2M` ([`Numbers::count`]).
pub fn format_count(v: u64) -> String {
    Numbers::default().count(v)
}

/// The drawing area every chart draws on: plotters' SVG backend.
type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// plotters' SVG backend writes `font-size` = size / 1.24: fonts are asked for this much
/// larger so that the SVG text has the size the layout means.
const SVG_TEXT: f64 = 1.24;

/// Is `c` a character that a line may break before or after (CJK ideographs, kana, hangul,
/// full-width punctuation)?
fn breaks_anywhere(c: char) -> bool {
    ('\u{2e80}'..='\u{9fff}').contains(&c)
        || ('\u{ac00}'..='\u{d7af}').contains(&c)
        || ('\u{f900}'..='\u{faff}').contains(&c)
        || ('\u{ff00}'..='\u{ffef}').contains(&c)
}

/// The pieces a line may break between: words with their trailing spaces, and each CJK
/// character alone.
fn break_pieces(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut after_space = false;
    for c in text.chars() {
        if breaks_anywhere(c) || (after_space && !c.is_whitespace()) {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            after_space = false;
        }
        cur.push(c);
        if breaks_anywhere(c) {
            out.push(std::mem::take(&mut cur));
        } else if c.is_whitespace() {
            after_space = true;
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The layout of one area under one style: sizes in device pixels.
struct Layout<'a> {
    style: &'a Style,
    k: f64,
    /// `k` times the style's text scale: device pixels per CSS pixel of text.
    text_k: f64,
    width: u32,
    narrow: bool,
    /// Tick label and axis title sizes (device pixels, as drawn).
    label: f64,
    desc: f64,
}

impl<'a> Layout<'a> {
    fn new(area: &Area, style: &'a Style) -> Self {
        let k = if style.scale.is_finite() {
            style.scale.clamp(0.25, 8.0)
        } else {
            1.0
        };
        let width = area.dim_in_pixel().0;
        let narrow = (width as f64 / k) < NARROW;
        let label_css = if narrow { LABEL_NARROW } else { LABEL_SIZE };
        let text_k = if style.text_scale.is_finite() {
            k * style.text_scale.clamp(0.25, 4.0)
        } else {
            k
        };
        Layout {
            style,
            k,
            text_k,
            width,
            narrow,
            label: (label_css * text_k).round(),
            desc: ((label_css + 1.0) * text_k).round(),
        }
    }

    /// `v` CSS pixels in device pixels.
    fn px(&self, v: f64) -> u32 {
        (v * self.k).round().max(1.0) as u32
    }

    /// Text of `size` device pixels (as drawn) in the text colour.
    fn font(&self, size: f64) -> TextStyle<'static> {
        self.font_in(size, self.style.palette.text)
    }

    fn font_in(&self, size: f64, color: RGBColor) -> TextStyle<'static> {
        let base = TextStyle::from((FONT, size * SVG_TEXT).into_font());
        TextStyle {
            color: color.to_backend_color(),
            ..base
        }
    }

    fn label_font(&self) -> TextStyle<'static> {
        self.font(self.label)
    }

    fn desc_font(&self) -> TextStyle<'static> {
        self.font(self.desc)
    }

    /// Width in device pixels of `text` drawn `size` device pixels tall: plotters' estimate
    /// (DOM-measured on wasm, a crude guess elsewhere), but at least `em` em per character
    /// (the native guess is too small for the browser that renders the SVG; a digit is about
    /// 0.64 em wide).
    fn text_width_at_least(&self, area: &Area, text: &str, size: f64, em: f64) -> u32 {
        let floor = (text.chars().count() as f64 * size * em).ceil() as u32;
        // Measured at a small reference size and scaled: in the browser plotters measures a
        // `position: fixed` span, which wraps at the viewport width (a phone's 390 px) and so
        // under-reports any longer text.
        let reference = TextStyle::from((FONT, MEASURE_SIZE).into_font());
        area.estimate_text_size(text, &reference)
            .map_or(floor, |(w, _)| {
                ((w as f64 * size / MEASURE_SIZE).ceil() as u32).max(floor)
            })
    }

    fn text_width(&self, area: &Area, text: &str, size: f64) -> u32 {
        self.text_width_at_least(area, text, size, 0.55)
    }

    /// `text` in lines of at most `room` device pixels at `size`, broken between words (and
    /// between CJK characters); a word longer than a line is broken between characters.
    fn wrap(&self, area: &Area, text: &str, size: f64, room: u32) -> Vec<String> {
        let fits = |s: &str| self.text_width(area, s.trim_end(), size) <= room;
        let mut lines: Vec<String> = Vec::new();
        let mut line = String::new();
        for piece in break_pieces(text) {
            let joined = format!("{line}{piece}");
            if fits(&joined) {
                line = joined;
                continue;
            }
            if !line.trim().is_empty() {
                lines.push(std::mem::take(&mut line).trim_end().to_string());
            }
            line.clear();
            // The piece alone: as it is, or cut between characters.
            for c in piece.chars() {
                let longer = format!("{line}{c}");
                if !line.is_empty() && !fits(&longer) {
                    lines.push(std::mem::take(&mut line).trim_end().to_string());
                    line = c.to_string();
                } else {
                    line = longer;
                }
            }
        }
        if !line.trim().is_empty() {
            lines.push(line.trim_end().to_string());
        }
        if lines.is_empty() {
            lines.push(String::new());
        }
        lines
    }

    /// Draws the caption `title` centred at the top of `area`, shrunk (down to
    /// [`CAPTION_MIN`] CSS px) to fit the width and wrapped onto more lines when it still does
    /// not, and returns the area under it. Drawn with the backend's own centring (plotters'
    /// caption would centre by a measured width, which the browser under-reports on narrow
    /// screens).
    fn caption<'b>(&self, area: &Area<'b>, title: &str) -> Result<Area<'b>, ChartError> {
        let room = self.width.saturating_sub(self.px(24.0));
        let mut size = CAPTION_SIZE;
        while size > CAPTION_MIN && self.text_width(area, title, size * self.text_k) > room {
            size -= 1.0;
        }
        let px = (size * self.text_k).round();
        let font = self.font(px).pos(Pos::new(HPos::Center, VPos::Top));
        let line_height = (px * 1.25).round() as i32;
        let top = self.px(8.0) as i32;
        let lines = self.wrap(area, title, px, room);
        for (i, line) in lines.iter().enumerate() {
            let y = top + i as i32 * line_height;
            area.draw(&Text::new(
                line.clone(),
                ((self.width / 2) as i32, y),
                font.clone(),
            ))
            .map_err(err)?;
        }
        let height = top + lines.len() as i32 * line_height + (px * 0.05).round() as i32;
        Ok(area.split_vertically(height as u32).1)
    }

    /// How many of `n` tick labels as wide as `sample` fit in `room` device pixels (1..=max).
    fn tick_count(&self, area: &Area, sample: &str, room: u32, n: usize, max: usize) -> usize {
        let w = self.text_width(area, sample, self.label) + self.px(14.0);
        let fit = (room / w.max(1)) as usize;
        n.min(max).min(fit.max(2)).max(1)
    }

    /// A date label (`YYYY-MM-DD`) as shown: without the year in the narrow layout.
    fn date<'s>(&self, label: &'s str) -> &'s str {
        let b = label.as_bytes();
        if self.narrow && b.len() == 10 && b[4] == b'-' && b[7] == b'-' {
            &label[5..]
        } else {
            label
        }
    }

    /// A chart under the caption with `x_area` / `y_area` device pixels of axis labels and the
    /// common 12 CSS px margin (`right`: another right margin).
    fn builder<'c, 'b, DB: DrawingBackend>(
        &self,
        plot: &'c DrawingArea<DB, Shift>,
        x_area: u32,
        y_area: u32,
        right: Option<u32>,
    ) -> ChartBuilder<'c, 'b, DB> {
        let mut b = ChartBuilder::on(plot);
        b.margin(self.px(12.0))
            .x_label_area_size(x_area)
            .y_label_area_size(y_area);
        if let Some(r) = right {
            b.margin_right(r);
        }
        b
    }

    /// The mesh settings every chart shares: axis titles, label and title fonts, axis line and
    /// tick marks in the text colour, grid lines in the grid colour.
    fn mesh<'m, 'c, 'b, X: Ranged, Y: Ranged, DB: DrawingBackend>(
        &self,
        mesh: &'m mut MeshStyle<'c, 'b, X, Y, DB>,
        x_desc: &str,
        y_desc: &str,
    ) -> &'m mut MeshStyle<'c, 'b, X, Y, DB> {
        let p = &self.style.palette;
        mesh.x_desc(x_desc)
            .y_desc(y_desc)
            .label_style(self.label_font())
            .axis_desc_style(self.desc_font())
            .axis_style(p.text.stroke_width(self.px(1.0)))
            .bold_line_style(p.grid.stroke_width(self.px(1.0)))
            .set_all_tick_mark_size(self.px(5.0))
    }
}

/// The pixel rectangle of a chart's plot area with its data ranges.
fn plot_of<X: Ranged, Y: Ranged>(
    chart: &ChartContext<SVGBackend, Cartesian2d<X, Y>>,
    x_range: (f64, f64),
    y_range: (f64, f64),
) -> Plot {
    let (xs, ys) = chart.plotting_area().get_pixel_range();
    Plot {
        left: xs.start,
        top: ys.start,
        right: xs.end,
        bottom: ys.end,
        x_range,
        y_range,
    }
}

/// Draws daily actives and rolling 7/30-day actives of [`Engagement`] `e` as three lines over
/// days labelled by `labels` (one per key, e.g. [`bitlens::analytics::date_label`]s).
/// `labels.len()` must equal `e.dau.len()`. One point per day, at the daily actives.
fn draw_dau(
    area: &Area,
    title: &str,
    labels: &[String],
    e: &Engagement,
    style: &Style,
) -> Result<Drawn, ChartError> {
    let l = Layout::new(area, style);
    let p = &style.palette;
    let w = &style.words;
    area.fill(&p.background).map_err(err)?;
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
    let plot = l.caption(area, title)?;
    let y_area = l.px(if l.narrow { 58.0 } else { 64.0 });
    let right = l.px(if l.narrow { 24.0 } else { 40.0 });
    let mut chart = l
        .builder(&plot, l.px(46.0), y_area, Some(right))
        .build_cartesian_2d(0i32..xmax, 0u64..y_top(ymax))
        .map_err(err)?;
    let label_of = |i: &i32| {
        usize::try_from(*i)
            .ok()
            .and_then(|i| labels.get(i))
            .map(|s| l.date(s).to_string())
            .unwrap_or_default()
    };
    let sample = labels.first().map(|s| l.date(s)).unwrap_or("0000");
    let room = l.width.saturating_sub(y_area + right + l.px(12.0));
    l.mesh(&mut chart.configure_mesh(), &w.day, &w.users)
        .x_labels(l.tick_count(area, sample, room, n.max(2), 8))
        .y_labels(if l.narrow { 6 } else { 10 })
        .x_label_formatter(&label_of)
        .y_label_formatter(&|v| style.numbers.count(*v))
        .light_line_style(p.background.mix(0.0))
        .draw()
        .map_err(err)?;
    let names = [w.dau.as_str(), w.wau.as_str(), w.mau.as_str()];
    let stroke = l.px(2.0);
    let sample_len = l.px(20.0) as i32;
    for ((name, series), color) in names.iter().zip([&e.dau, &e.wau, &e.mau]).zip(p.series) {
        chart
            .draw_series(LineSeries::new(
                series.iter().enumerate().map(|(i, &v)| (i as i32, v)),
                color.stroke_width(stroke),
            ))
            .map_err(err)?
            .label(*name)
            .legend(move |(x, y)| {
                PathElement::new(
                    vec![(x, y), (x + sample_len, y)],
                    color.stroke_width(stroke),
                )
            });
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .label_font(l.label_font())
        .legend_area_size(l.px(26.0))
        .margin(l.px(6.0))
        .background_style(p.background.mix(0.85))
        .border_style(p.text.mix(0.4))
        .draw()
        .map_err(err)?;
    let points = e
        .dau
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let (x, y) = chart.backend_coord(&(i as i32, v));
            Point {
                x,
                y,
                row: i as u32,
                col: 0,
            }
        })
        .collect();
    Ok(Drawn {
        x_desc: w.day.clone(),
        y_desc: w.users.clone(),
        legend: names.iter().map(|s| s.to_string()).collect(),
        plot: plot_of(&chart, (0.0, xmax as f64), (0.0, y_top(ymax) as f64)),
        points,
    })
}

/// Draws bars `counts[i]` at x labels `x_label(i)`: the shared body of the two bar charts.
/// One point per bar (zero bars too), at the top of the bar.
fn draw_bars(
    area: &Area,
    title: &str,
    x_desc: &str,
    counts: &[u64],
    x_label: &dyn Fn(usize) -> String,
    style: &Style,
) -> Result<Drawn, ChartError> {
    let l = Layout::new(area, style);
    let p = &style.palette;
    area.fill(&p.background).map_err(err)?;
    // Integer ranges are closed in plotters: segments 0..=n−1 are the n bars.
    let n = counts.len().max(1) as u32;
    let ymax = counts.iter().copied().max().unwrap_or(0);
    let plot = l.caption(area, title)?;
    let y_area = l.px(if l.narrow { 58.0 } else { 64.0 });
    let mut chart = l
        .builder(&plot, l.px(46.0), y_area, None)
        .build_cartesian_2d((0u32..n - 1).into_segmented(), 0u64..y_top(ymax))
        .map_err(err)?;
    let fmt_x = |v: &SegmentValue<u32>| match v {
        SegmentValue::CenterOf(i) | SegmentValue::Exact(i) if (*i as usize) < counts.len() => {
            x_label(*i as usize)
        }
        _ => String::new(),
    };
    let sample = x_label(counts.len().saturating_sub(1));
    let room = l.width.saturating_sub(y_area + l.px(24.0));
    l.mesh(&mut chart.configure_mesh(), x_desc, &style.words.users)
        .x_labels(l.tick_count(area, &sample, room, counts.len().max(1), 16))
        .y_labels(if l.narrow { 6 } else { 10 })
        .x_label_formatter(&fmt_x)
        .y_label_formatter(&|v| style.numbers.count(*v))
        .disable_x_mesh()
        .light_line_style(p.background.mix(0.0))
        .draw()
        .map_err(err)?;
    let gap = if counts.len() > 60 { 0 } else { l.px(2.0) };
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
                        p.bar.filled(),
                    );
                    r.set_margin(0, 0, gap, gap);
                    r
                }),
        )
        .map_err(err)?;
    let points = counts
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            let (x, y) = chart.backend_coord(&(SegmentValue::CenterOf(i as u32), c));
            Point {
                x,
                y,
                row: i as u32,
                col: 0,
            }
        })
        .collect();
    Ok(Drawn {
        x_desc: x_desc.to_string(),
        y_desc: style.words.users.clone(),
        legend: Vec::new(),
        plot: plot_of(&chart, (0.0, n as f64), (0.0, y_top(ymax) as f64)),
        points,
    })
}

/// Fill colour of a retention fraction in 0..=1 in the light palette
/// ([`Palette::heat`] of [`Palette::LIGHT`]: linear from [`HEAT_LOW`] to [`HEAT_HIGH`]).
pub fn heat_color(fraction: f64) -> RGBColor {
    Palette::LIGHT.heat(fraction)
}

/// The percentage printed in a retention cell: `returned / size`, rounded, e.g. `"42%"`.
pub fn retention_percent(returned: u64, size: u64) -> String {
    if size == 0 {
        "0%".into()
    } else {
        format!("{:.0}%", returned as f64 * 100.0 / size as f64)
    }
}

/// Relative luminance (0..=1, sRGB weights without gamma) of a colour: picks the cell text.
fn luminance(c: RGBColor) -> f64 {
    (0.299 * c.0 as f64 + 0.587 * c.1 as f64 + 0.114 * c.2 as f64) / 255.0
}

/// Draws the retention heatmap of [`bitlens::analytics::daily::retention`] rows: one row per
/// cohort (first cohort at the top, y label `row_labels[i] (n=size)`, in the narrow layout
/// `MM-DD (size)`), one column per day after (`+1 … +horizon`), each cell coloured by and
/// labelled with the percentage of the cohort back that day ([`retention_percent`]) when the
/// cells are big enough. Cells past the last day stay empty. One point per drawn cell, at its
/// centre (row = cohort, col = day after − 1).
fn draw_retention(
    area: &Area,
    title: &str,
    row_labels: &[String],
    rows: &[CohortRow],
    style: &Style,
) -> Result<Drawn, ChartError> {
    let l = Layout::new(area, style);
    let p = &style.palette;
    let w = &style.words;
    area.fill(&p.background).map_err(err)?;
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
    let y_label = |r: usize| {
        let n = style.numbers.count(rows[r].size);
        if l.narrow {
            format!("{} ({n})", l.date(&row_labels[r]))
        } else {
            format!("{} (n={n})", row_labels[r])
        }
    };
    // Room for the longest row label plus the rotated axis title, so the title never overlaps
    // a label.
    let longest = (0..rows.len())
        .map(|r| l.text_width_at_least(area, &y_label(r), l.label, 0.66))
        .max()
        .unwrap_or(0);
    let y_area =
        (longest + l.desc as u32 + l.px(24.0)).max(l.px(if l.narrow { 80.0 } else { 120.0 }));
    let plot = l.caption(area, title)?;
    let mut chart = l
        .builder(&plot, l.px(46.0), y_area, None)
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
    l.mesh(&mut chart.configure_mesh(), &w.days_after, &w.cohort)
        .disable_mesh()
        .x_labels(horizon as usize)
        .y_labels(rows.len().clamp(1, 40))
        .x_label_formatter(&fmt_x)
        .y_label_formatter(&fmt_y)
        .draw()
        .map_err(err)?;
    // (x, y, returned, size, cohort, day after − 1) of every known cell.
    let cells: Vec<(u32, u32, u64, u64, u32, u32)> = rows
        .iter()
        .enumerate()
        .flat_map(|(r, row)| {
            let y = nrows - 1 - r as u32;
            row.returned.iter().enumerate().filter_map(move |(t, v)| {
                v.map(|v| (t as u32 + 1, y, v, row.size, r as u32, t as u32))
            })
        })
        .collect();
    let fraction = |v: u64, size: u64| {
        if size == 0 {
            0.0
        } else {
            v as f64 / size as f64
        }
    };
    let gap = l.px(1.0);
    chart
        .draw_series(cells.iter().map(|&(x, y, v, size, ..)| {
            let mut r = Rectangle::new(
                [
                    (SegmentValue::Exact(x), SegmentValue::Exact(y)),
                    (SegmentValue::Exact(x + 1), SegmentValue::Exact(y + 1)),
                ],
                p.heat(fraction(v, size)).filled(),
            );
            r.set_margin(gap, gap, gap, gap);
            r
        }))
        .map_err(err)?;
    // Percent labels when the cells are big enough to hold them (sizes in CSS pixels).
    let (aw, ah) = area.dim_in_pixel();
    let cell_w = aw.saturating_sub(y_area + l.px(40.0)) as f64 / horizon as f64 / l.k;
    let cell_h = ah.saturating_sub(l.px(110.0)) as f64 / nrows as f64 / l.k;
    if cell_w >= 30.0 && cell_h >= 14.0 {
        let size = (cell_h.min(cell_w / 3.0)).clamp(10.0, 14.0);
        let size = (size * l.text_k).round();
        chart
            .draw_series(cells.iter().map(|&(x, y, v, total, ..)| {
                let cell = p.heat(fraction(v, total));
                let ink = if luminance(cell) < 0.5 { WHITE } else { BLACK };
                let style = l
                    .font_in(size, ink)
                    .pos(Pos::new(HPos::Center, VPos::Center));
                Text::new(
                    retention_percent(v, total),
                    (SegmentValue::CenterOf(x), SegmentValue::CenterOf(y)),
                    style,
                )
            }))
            .map_err(err)?;
    }
    let points = cells
        .iter()
        .map(|&(x, y, _, _, row, col)| {
            let (px, py) =
                chart.backend_coord(&(SegmentValue::CenterOf(x), SegmentValue::CenterOf(y)));
            Point {
                x: px,
                y: py,
                row,
                col,
            }
        })
        .collect();
    Ok(Drawn {
        x_desc: w.days_after.clone(),
        y_desc: w.cohort.clone(),
        legend: Vec::new(),
        plot: plot_of(&chart, (1.0, horizon as f64 + 1.0), (0.0, nrows as f64)),
        points,
    })
}

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

/// A nearby-shops search to map: the centre (longitude, latitude in degrees), the radius in
/// metres, the result points (longitude, latitude) and how many of the first ones are the page
/// on screen.
#[derive(Debug, Clone, Copy)]
pub struct Nearby<'a> {
    /// Centre (longitude, latitude) in degrees.
    pub centre: (f64, f64),
    /// Search radius in metres (positive).
    pub radius_m: f64,
    /// Result points (longitude, latitude) in degrees.
    pub points: &'a [(f64, f64)],
    /// The first `highlight` points are drawn larger, in the highlight colour.
    pub highlight: usize,
}

/// Draws a nearby-shops search: the radius circle around the centre, the centre as a cross,
/// and each result point as a dot; the highlighted ones larger and in the highlight colour.
/// Axes are kilometres east and north of the centre, at equal scale. One point per result.
fn draw_nearby(area: &Area, title: &str, q: &Nearby, style: &Style) -> Result<Drawn, ChartError> {
    let radius_m = q.radius_m;
    if !(radius_m.is_finite() && radius_m > 0.0) {
        return Err(ChartError(format!("radius {radius_m} m is not positive")));
    }
    let l = Layout::new(area, style);
    let p = &style.palette;
    let w = &style.words;
    area.fill(&p.background).map_err(err)?;
    let r = radius_m / 1000.0 * 1.08;
    let plot = l.caption(area, title)?;
    let mut chart = l
        .builder(&plot, l.px(40.0), l.px(52.0), None)
        .build_cartesian_2d(-r..r, -r..r)
        .map_err(err)?;
    l.mesh(&mut chart.configure_mesh(), &w.km_east, &w.km_north)
        .x_labels(5)
        .y_labels(5)
        .light_line_style(p.grid.mix(0.35))
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
        .draw_series(LineSeries::new(circle, p.circle.stroke_width(l.px(2.0))))
        .map_err(err)?;
    let km = |&(lon, lat): &(f64, f64)| {
        let (x, y) = local_metres(q.centre, lon, lat);
        (x / 1000.0, y / 1000.0)
    };
    let (rest, page): (Vec<_>, Vec<_>) = q
        .points
        .iter()
        .enumerate()
        .partition(|(i, _)| *i >= q.highlight);
    let (small, big) = (l.px(2.0), l.px(4.0));
    chart
        .draw_series(
            rest.iter()
                .map(|(_, pt)| Circle::new(km(pt), small, p.point.filled())),
        )
        .map_err(err)?;
    chart
        .draw_series(
            page.iter()
                .map(|(_, pt)| Circle::new(km(pt), big, p.highlight.filled())),
        )
        .map_err(err)?;
    chart
        .draw_series(std::iter::once(Cross::new(
            (0.0, 0.0),
            l.px(7.0),
            p.text.stroke_width(l.px(2.0)),
        )))
        .map_err(err)?;
    let points = q
        .points
        .iter()
        .enumerate()
        .map(|(i, pt)| {
            let (x, y) = chart.backend_coord(&km(pt));
            Point {
                x,
                y,
                row: i as u32,
                col: 0,
            }
        })
        .collect();
    Ok(Drawn {
        x_desc: w.km_east.clone(),
        y_desc: w.km_north.clone(),
        legend: Vec::new(),
        plot: plot_of(&chart, (-r, r), (-r, r)),
        points,
    })
}

/// Renders `draw` on a `width × height` SVG document.
fn render(
    width: u32,
    height: u32,
    draw: impl FnOnce(&Area) -> Result<Drawn, ChartError>,
) -> Result<Chart, ChartError> {
    let mut svg = String::new();
    let drawn = {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        let drawn = draw(&root)?;
        root.present().map_err(err)?;
        drawn
    };
    Ok(Chart { svg, drawn })
}

/// Daily actives with rolling 7/30-day actives of [`Engagement`] `e` (three lines over days
/// labelled by `labels`, one per key, e.g. [`bitlens::analytics::date_label`]s;
/// `labels.len()` must equal `e.dau.len()`), `width × height` pixels in `style`. Points: one
/// per day, at its daily actives.
pub fn dau_chart(
    title: &str,
    labels: &[String],
    e: &Engagement,
    width: u32,
    height: u32,
    style: &Style,
) -> Result<Chart, ChartError> {
    render(width, height, |a| draw_dau(a, title, labels, e, style))
}

/// The streak histogram of [`bitlens::analytics::daily::streak_histogram`] as bars: bar `k`
/// (x label `k`, in days) is the number of users whose current streak is `k` days
/// (`hist[k − 1]`). Points: one per bar (zero bars too), row `k − 1`.
pub fn streak_chart(
    title: &str,
    hist: &[u64],
    width: u32,
    height: u32,
    style: &Style,
) -> Result<Chart, ChartError> {
    let x = style.words.streak_days.as_str();
    render(width, height, |a| {
        draw_bars(a, title, x, hist, &|i| (i + 1).to_string(), style)
    })
}

/// A `u<w>` value distribution of [`bitlens::analytics::enums`] as bars: bar `v` is the number
/// of users with value `v`; values above the largest one present are left out (so a `u16`
/// distribution with values up to 20 draws 21 bars). Points: one per bar shown, row `v`.
pub fn enum_chart(
    title: &str,
    hist: &[u64],
    width: u32,
    height: u32,
    style: &Style,
) -> Result<Chart, ChartError> {
    let last = hist.iter().rposition(|&c| c > 0).unwrap_or(0);
    let shown = &hist[..(last + 1).min(hist.len())];
    let x = style.words.value.as_str();
    render(width, height, |a| {
        draw_bars(a, title, x, shown, &|i| i.to_string(), style)
    })
}

/// The retention heatmap of [`bitlens::analytics::daily::retention`] rows (first cohort at the
/// top, labelled by `row_labels`; one column per day after; cells coloured by and labelled
/// with the percentage back, [`retention_percent`]). Points: one per known cell, row = cohort,
/// col = day after − 1.
pub fn retention_chart(
    title: &str,
    row_labels: &[String],
    rows: &[CohortRow],
    width: u32,
    height: u32,
    style: &Style,
) -> Result<Chart, ChartError> {
    render(width, height, |a| {
        draw_retention(a, title, row_labels, rows, style)
    })
}

/// A nearby-shops search as a map in kilometres east / north of the centre (see [`Nearby`]).
/// Points: one per result, in the given order. Errors when the radius is not positive.
pub fn nearby_chart(
    title: &str,
    q: &Nearby,
    width: u32,
    height: u32,
    style: &Style,
) -> Result<Chart, ChartError> {
    render(width, height, |a| draw_nearby(a, title, q, style))
}

/// [`dau_chart`] as an SVG document in the default [`Style`].
pub fn dau_svg(
    title: &str,
    labels: &[String],
    e: &Engagement,
    width: u32,
    height: u32,
) -> Result<String, ChartError> {
    dau_chart(title, labels, e, width, height, &Style::default()).map(|c| c.svg)
}

/// [`streak_chart`] as an SVG document in the default [`Style`].
pub fn streak_histogram_svg(
    title: &str,
    hist: &[u64],
    width: u32,
    height: u32,
) -> Result<String, ChartError> {
    streak_chart(title, hist, width, height, &Style::default()).map(|c| c.svg)
}

/// [`retention_chart`] as an SVG document in the default [`Style`].
pub fn retention_svg(
    title: &str,
    row_labels: &[String],
    rows: &[CohortRow],
    width: u32,
    height: u32,
) -> Result<String, ChartError> {
    retention_chart(title, row_labels, rows, width, height, &Style::default()).map(|c| c.svg)
}

/// [`enum_chart`] as an SVG document in the default [`Style`].
pub fn enum_distribution_svg(
    title: &str,
    hist: &[u64],
    width: u32,
    height: u32,
) -> Result<String, ChartError> {
    enum_chart(title, hist, width, height, &Style::default()).map(|c| c.svg)
}

/// The texts of an SVG document as this module writes it: the contents of its `<text>`
/// elements in document order, trimmed and still XML-escaped (`&amp;`). A `<text>` with no
/// closing tag ends the list. For reading a chart's labels back (tests, tools).
pub fn svg_texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .map_while(|t| {
            let body = &t[t.find('>')? + 1..];
            Some(body[..body.find("</text>")?].trim().to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn css_colours() {
        assert_eq!(css_color(" #1f242c").unwrap(), RGBColor(0x1f, 0x24, 0x2c));
        assert_eq!(css_color("#fff").unwrap(), WHITE);
        assert_eq!(css_color("#11223344").unwrap(), RGBColor(0x11, 0x22, 0x33));
        assert_eq!(css_color("rgb(31, 36, 44)").unwrap(), RGBColor(31, 36, 44));
        assert_eq!(css_color("rgba(1, 2, 3, 0.5)").unwrap(), RGBColor(1, 2, 3));
        assert_eq!(css_color("rgb(1 2 3 / 50%)").unwrap(), RGBColor(1, 2, 3));
        for bad in [
            "",
            "red",
            "#12",
            "#ggg",
            "rgb(1, 2)",
            "rgb(300, 0, 0)",
            "#1234567",
        ] {
            let e = css_color(bad).unwrap_err();
            assert!(e.0.contains("not a colour"), "{bad}: {e}");
        }
    }

    #[test]
    fn compact_counts_per_locale() {
        let en = Numbers::for_locale("en-US");
        let zh = Numbers::for_locale("zh-CN");
        assert_eq!(en.count(9_999), "9999");
        assert_eq!(en.count(149_018), "149k");
        assert_eq!(en.count(12_500), "12.5k");
        assert_eq!(en.count(3_200_000), "3.2M");
        assert_eq!(zh.count(9_999), "9999");
        assert_eq!(zh.count(149_018), "14.9万");
        assert_eq!(zh.count(230_000_000), "2.3亿");
        assert_eq!(Numbers::for_locale("fr"), en);
        assert_eq!(format_count(20_000), "20k");
    }

    use super::svg_texts as texts;

    #[test]
    fn style_words_colours_and_scale_are_drawn() {
        let words = Words {
            day: "日期".into(),
            users: "用户数".into(),
            dau: "日活".into(),
            wau: "7 天活跃".into(),
            mau: "30 天活跃".into(),
            ..Words::default()
        };
        let dark = Palette {
            background: RGBColor(0x1f, 0x24, 0x2c),
            text: RGBColor(0xe6, 0xe9, 0xee),
            ..Palette::LIGHT
        };
        let style = Style {
            palette: dark,
            words,
            numbers: Numbers::for_locale("zh"),
            scale: 2.0,
            text_scale: 1.0,
        };
        let e = Engagement {
            dau: vec![120_000, 149_018],
            wau: vec![130_000, 160_000],
            mau: vec![140_000, 170_000],
            stickiness: vec![0.0, 0.0],
        };
        let labels = vec!["2024-05-01".to_string(), "2024-05-02".to_string()];
        let Chart { svg: out, drawn } = dau_chart("日活", &labels, &e, 700, 500, &style).unwrap();
        assert_eq!(drawn.x_desc, "日期");
        assert_eq!(drawn.y_desc, "用户数");
        assert_eq!(drawn.legend, ["日活", "7 天活跃", "30 天活跃"]);
        let t = texts(&out);
        for want in ["日期", "用户数", "7 天活跃", "30 天活跃", "05-01"] {
            assert!(t.iter().any(|x| x == want), "missing {want}: {t:?}");
        }
        // 700 device px at scale 2 is 350 CSS px: the narrow layout (no year), 万 ticks.
        assert!(!t.iter().any(|x| x == "2024-05-01"), "{t:?}");
        assert!(t.iter().any(|x| x.ends_with('万')), "{t:?}");
        // The dark background fills the area; labels are 13 CSS px = 26 device px (asked for
        // 1.24 times larger, as plotters' SVG backend writes font-size = size / 1.24).
        assert!(out.contains("fill=\"#1F242C\""), "background");
        let sizes: Vec<f64> = out
            .split("font-size=\"")
            .skip(1)
            .map(|t| t[..t.find('"').unwrap()].parse().unwrap())
            .collect();
        assert!(
            sizes.iter().any(|s| (s - 26.0).abs() < 1e-6),
            "label size: {sizes:?}"
        );
        // One point per day at the DAU value, inside the plot area, the higher day higher up.
        let plot = &drawn.plot;
        assert_eq!(drawn.points.len(), 2);
        for p in &drawn.points {
            assert!((plot.left..=plot.right).contains(&p.x), "{p:?} {plot:?}");
            assert!((plot.top..=plot.bottom).contains(&p.y), "{p:?} {plot:?}");
        }
        assert_eq!(
            (drawn.points[0].x, drawn.points[1].x),
            (plot.left, plot.right - 1)
        );
        assert!(drawn.points[1].y < drawn.points[0].y);
    }

    #[test]
    fn points_of_bars_cells_and_map() {
        let style = Style::default();
        let hist = [5u64, 0, 9];
        let c = streak_chart("Streaks", &hist, 600, 300, &style).unwrap();
        let pts = &c.drawn.points;
        assert_eq!(pts.iter().map(|p| p.row).collect::<Vec<_>>(), [0, 1, 2]);
        assert!(pts[0].x < pts[1].x && pts[1].x < pts[2].x);
        // Bar tops: zero at the axis, 9 above 5.
        assert_eq!(pts[1].y, c.drawn.plot.bottom - 1);
        assert!(pts[2].y < pts[0].y && pts[0].y < pts[1].y);
        // Retention: one point per known cell, row-major, the first cohort at the top.
        let rows = vec![
            CohortRow {
                day: 0,
                size: 10,
                returned: vec![Some(5), Some(3)],
            },
            CohortRow {
                day: 1,
                size: 8,
                returned: vec![Some(4), None],
            },
        ];
        let labels = vec!["2024-05-01".to_string(), "2024-05-02".to_string()];
        let c = retention_chart("R", &labels, &rows, 700, 400, &style).unwrap();
        let cells: Vec<(u32, u32)> = c.drawn.points.iter().map(|p| (p.row, p.col)).collect();
        assert_eq!(cells, [(0, 0), (0, 1), (1, 0)]);
        let [a, b, d] = [c.drawn.points[0], c.drawn.points[1], c.drawn.points[2]];
        assert!(a.x < b.x && a.y == b.y && d.x == a.x && d.y > a.y);
        // Map: the point east of the centre is right of it, the one north above it.
        let q = Nearby {
            centre: (121.47, 31.23),
            radius_m: 2000.0,
            points: &[(121.48, 31.23), (121.47, 31.24)],
            highlight: 1,
        };
        let c = nearby_chart("Map", &q, 400, 400, &style).unwrap();
        let (e, n) = (c.drawn.points[0], c.drawn.points[1]);
        let mid = (c.drawn.plot.left + c.drawn.plot.right) / 2;
        assert!(e.x > mid + 10 && (n.x - mid).abs() <= 2 && n.y < e.y);
        assert!(nearby_chart("Map", &Nearby { radius_m: 0.0, ..q }, 400, 400, &style).is_err());
    }

    #[test]
    fn captions_wrap_rather_than_cut() {
        let title = "Daily actives and rolling 7 / 30-day actives, 2024-04-03 to 2024-05-02";
        // 390 CSS px wide at dpr 2: the title does not fit on one line.
        let style = Style {
            scale: 2.0,
            ..Style::default()
        };
        let c = streak_chart(title, &[1, 2], 780, 600, &style).unwrap();
        let t = texts(&c.svg);
        assert!(!t.iter().any(|x| x.contains('…')), "{t:?}");
        let words: Vec<&str> = title.split(' ').collect();
        let first = t.iter().position(|x| x.starts_with("Daily")).unwrap();
        let lines: Vec<&String> = t[first..]
            .iter()
            .take_while(|x| x.split(' ').all(|w| words.contains(&w)))
            .collect();
        assert!(lines.len() >= 2, "{lines:?}");
        let joined = lines
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        assert_eq!(joined, title);
        // CJK text breaks between characters.
        assert_eq!(break_pieces("日活 a b"), ["日", "活", " ", "a ", "b"]);
    }
}
