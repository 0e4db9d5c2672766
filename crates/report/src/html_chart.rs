//! The plots of the HTML reports: grouped bars per block slot with
//! reference lines (`html.rs`: the slot length, the crypto floors), a box
//! per block (`box_chart`: the simulation's approval spread, its axis from
//! the data) and lines against a numeric x (the sweeps' scaling plots, the
//! simulation's finality over time), drawn as inline SVG by plotters' SVG
//! backend, one fixed colour per layout (a layout's floor in its colour,
//! dashed), the title and the legend inside the SVG, the legend in a strip
//! beside the data, never over it. Tick labels are as short as their value
//! (`12500`, not `12500.0`); counts and integer axes (validators) get
//! integer ticks only. Every SVG keeps its `viewBox`, so a page may scale
//! it down to a narrow window.

use anyhow::{anyhow, Result};
use plotters::prelude::*;

mod strip;
use strip::Strip;

const WIDTH: u32 = 760;
const HEIGHT: u32 = 340;
/// Width of the legend strip right of the plot area.
const LEGEND_WIDTH: u32 = 230;

/// The colour of a layout in every plot: classic always blue, the parallel
/// layouts of the page the next colours in order.
pub(crate) fn layout_colour(layout: &str, layouts: &[String]) -> RGBColor {
    const CLASSIC: RGBColor = RGBColor(31, 119, 180);
    const OTHERS: [RGBColor; 9] = [
        RGBColor(255, 127, 14),
        RGBColor(44, 160, 44),
        RGBColor(214, 39, 40),
        RGBColor(148, 103, 189),
        RGBColor(140, 86, 75),
        RGBColor(227, 119, 194),
        RGBColor(127, 127, 127),
        RGBColor(188, 189, 34),
        RGBColor(23, 190, 207),
    ];
    if layout == "classic" {
        return CLASSIC;
    }
    let mut others: Vec<&String> = Vec::new();
    for l in layouts {
        if l.as_str() != "classic" && !others.contains(&l) {
            others.push(l);
        }
    }
    let i = others.iter().position(|l| *l == layout).unwrap_or(0);
    OTHERS[i % OTHERS.len()]
}

/// The marker of the `i`th line of a line chart: a circle, a square, a
/// triangle, a cross, in turn, so that lines of one colour (or drawn over
/// each other) stay told apart.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Marker {
    Circle,
    Square,
    Triangle,
    Cross,
}

impl Marker {
    pub(crate) fn of(i: usize) -> Marker {
        [
            Marker::Circle,
            Marker::Square,
            Marker::Triangle,
            Marker::Cross,
        ][i % 4]
    }
}

/// A marker's style: a 2-px outline (hollow) or filled.
fn marker_style(colour: RGBColor, hollow: bool) -> ShapeStyle {
    if hollow {
        colour.stroke_width(2)
    } else {
        colour.filled()
    }
}

/// Draw marker `m` at each of `points` (plot coordinates), hollow or
/// filled, on chart `c`.
fn draw_markers<DB: DrawingBackend>(
    c: &mut ChartContext<
        '_,
        DB,
        Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
    >,
    points: &[(f64, f64)],
    m: Marker,
    colour: RGBColor,
    hollow: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let style = marker_style(colour, hollow);
    let p = points.iter().copied();
    match m {
        Marker::Circle => c
            .draw_series(p.map(|p| Circle::new(p, 4, style)))
            .map(|_| ()),
        Marker::Square => c
            .draw_series(p.map(|p| EmptyElement::at(p) + Rectangle::new([(-4, -4), (4, 4)], style)))
            .map(|_| ()),
        Marker::Triangle => c
            .draw_series(p.map(|p| TriangleMarker::new(p, 5, style)))
            .map(|_| ()),
        Marker::Cross => c
            .draw_series(p.map(|p| Cross::new(p, 4, colour.stroke_width(2))))
            .map(|_| ()),
    }
}

/// A marker's sample in a legend at `(x, y)` (pixels of the strip).
fn legend_marker<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    (x, y): (i32, i32),
    m: Marker,
    colour: RGBColor,
    hollow: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let style = marker_style(colour, hollow);
    match m {
        Marker::Circle => area.draw(&Circle::new((x, y), 4, style)),
        Marker::Square => area.draw(&Rectangle::new([(x - 4, y - 4), (x + 4, y + 4)], style)),
        Marker::Triangle => area.draw(&TriangleMarker::new((x, y), 5, style)),
        Marker::Cross => area.draw(&Cross::new((x, y), 4, colour.stroke_width(2))),
    }
}

/// The bars of one layout: a value per group (`None`: nothing to draw);
/// `name` is its legend entry.
pub(crate) struct Bars {
    pub name: String,
    pub layout: String,
    pub colour: RGBColor,
    pub values: Vec<Option<f64>>,
}

/// A horizontal reference line (the slot length, a crypto floor), named in
/// the legend; a layout's floor is dashed in the layout's colour.
pub(crate) struct Mark {
    pub y: f64,
    pub label: String,
    pub colour: RGBColor,
    pub dashed: bool,
}

/// Dashes of a reference line: dash and gap, in pixels.
const DASH: (u32, u32) = (6, 4);

fn y_top(bars: &[Bars], marks: &[Mark]) -> f64 {
    let hi = bars
        .iter()
        .flat_map(|b| b.values.iter().flatten().copied())
        .chain(marks.iter().map(|m| m.y))
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max);
    if hi <= 0.0 {
        1.0
    } else {
        hi * 1.08
    }
}

/// A tick label as short as its value: `12500`, `0.25`, never `12500.0`
/// (rounded to six decimals first, so a tick computed as
/// `0.30000000000000004` reads `0.3`).
pub(crate) fn tick(v: &f64) -> String {
    let s = format!("{v:.6}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_owned()
    } else {
        s.to_owned()
    }
}

/// A tick label of an integer axis: whole numbers only, the others blank.
pub(crate) fn integer_tick(v: &f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{v:.0}")
    } else {
        String::new()
    }
}

/// The drawing area of a plot and of its legend strip.
type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

/// An SVG of the reports' size, white, its plot area and legend strip
/// drawn by `plot`; inline SVG in HTML needs no namespace, so the page
/// names no URL at all.
fn draw(
    title: &str,
    plot: impl FnOnce(&Area, &Area) -> Result<(), DrawingAreaErrorKind<std::io::Error>>,
) -> Result<String> {
    draw_sized(title, Strip::default(), plot)
}

/// [`draw`] with a legend strip as large as `strip` needs.
fn draw_sized(
    title: &str,
    strip: Strip,
    plot: impl FnOnce(&Area, &Area) -> Result<(), DrawingAreaErrorKind<std::io::Error>>,
) -> Result<String> {
    let mut svg = String::new();
    {
        let size = strip.size();
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        let err = |e: DrawingAreaErrorKind<std::io::Error>| anyhow!("cannot draw {title}: {e}");
        root.fill(&WHITE).map_err(err)?;
        let (area, legend) = root.split_horizontally(WIDTH - LEGEND_WIDTH);
        plot(&area, &legend).map_err(err)?;
        root.present().map_err(err)?;
    }
    Ok(svg.replace(" xmlns=\"http://www.w3.org/2000/svg\"", ""))
}

/// The label of the group at `x` (groups sit at 1, 2, ...; blank
/// between).
fn group_label(labels: &[String], x: f64) -> String {
    let i = x.round() as usize;
    if (x - x.round()).abs() < 1e-6 && (1..=labels.len()).contains(&i) {
        labels[i - 1].clone()
    } else {
        String::new()
    }
}

/// What a bar chart shows: its title, the y axis, the x groups' labels
/// (block numbers, `tail`), and whether the y values are counts (integer
/// ticks only).
pub(crate) struct BarChart<'a> {
    pub title: &'a str,
    pub x_desc: &'a str,
    pub y_desc: &'a str,
    pub groups: &'a [String],
    pub integer: bool,
}

/// Grouped bars: one group per x label, one bar per layout in the group,
/// the reference lines across, title and legend inside the SVG.
pub(crate) fn bar_chart(chart: &BarChart<'_>, bars: &[Bars], marks: &[Mark]) -> Result<String> {
    let title = chart.title;
    let strip = Strip::of(
        bars.iter()
            .map(|b| b.name.as_str())
            .chain(marks.iter().map(|m| m.label.as_str())),
        None,
    );
    draw_sized(title, strip, |plot, legend| {
        let n = chart.groups.len().max(1);
        let mut top = y_top(bars, marks);
        if chart.integer {
            top = top.ceil().max(1.0);
        }
        let mut c = ChartBuilder::on(plot)
            .caption(title, ("sans-serif", 17))
            .margin(10)
            .x_label_area_size(36)
            .y_label_area_size(60)
            .build_cartesian_2d(0.5f64..n as f64 + 0.5, 0.0..top)?;
        let x_format = |x: &f64| group_label(chart.groups, *x);
        let mut mesh = c.configure_mesh();
        mesh.x_labels(n.clamp(2, 25))
            .x_label_formatter(&x_format)
            .x_desc(chart.x_desc)
            .y_desc(chart.y_desc)
            .light_line_style(WHITE.mix(0.0));
        if chart.integer {
            // Counts: a tick per whole number (at most 11), none between.
            mesh.y_labels((top as usize + 1).min(11))
                .y_label_formatter(&integer_tick);
        } else {
            mesh.y_label_formatter(&tick);
        }
        mesh.draw()?;
        let width = 0.8 / bars.len().max(1) as f64;
        for (j, b) in bars.iter().enumerate() {
            let colour = b.colour;
            c.draw_series(b.values.iter().enumerate().filter_map(|(i, v)| {
                let v = (*v)?;
                let x0 = i as f64 + 1.0 - 0.4 + j as f64 * width;
                Some(Rectangle::new(
                    [(x0, 0.0), (x0 + width, v)],
                    colour.filled(),
                ))
            }))?;
        }
        for m in marks {
            let ends = [(0.5, m.y), (n as f64 + 0.5, m.y)];
            if m.dashed {
                c.draw_series(DashedLineSeries::new(
                    ends,
                    DASH.0,
                    DASH.1,
                    m.colour.stroke_width(2),
                ))?;
            } else {
                c.draw_series(std::iter::once(PathElement::new(
                    ends.to_vec(),
                    m.colour.stroke_width(2),
                )))?;
            }
        }
        if bars.iter().all(|b| b.values.iter().all(Option::is_none)) {
            plot.draw(&Text::new(
                "no data in this report",
                ((WIDTH / 2 - 140) as i32, (HEIGHT / 2) as i32),
                ("sans-serif", 15),
            ))?;
        }
        draw_legend(legend, bars, marks)?;
        Ok(())
    })
}

fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    bars: &[Bars],
    marks: &[Mark],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let mut y = 40;
    for b in bars {
        area.draw(&Rectangle::new([(6, y), (20, y + 12)], b.colour.filled()))?;
        area.draw(&Text::new(b.name.clone(), (26, y), ("sans-serif", 12)))?;
        y += 20;
    }
    for m in marks {
        legend_line(area, y, (m.colour, 2), m.dashed)?;
        area.draw(&Text::new(m.label.clone(), (26, y), ("sans-serif", 12)))?;
        y += 20;
    }
    Ok(())
}

/// A reference line's sample in a legend at `y`, `width` px: solid, or
/// two dashes.
fn legend_line<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    y: i32,
    (colour, width): (RGBColor, u32),
    dashed: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let style = colour.stroke_width(width);
    if dashed {
        area.draw(&PathElement::new(vec![(4, y + 6), (10, y + 6)], style))?;
        area.draw(&PathElement::new(vec![(14, y + 6), (20, y + 6)], style))?;
    } else {
        area.draw(&PathElement::new(vec![(4, y + 6), (22, y + 6)], style))?;
    }
    Ok(())
}

/// One line of a [`line_chart`]: its name (in the legend), the layout
/// whose colour it takes, its points (x, y) in ascending x.
pub struct Line {
    pub name: String,
    pub layout: String,
    pub points: Vec<(f64, f64)>,
}

/// Lines from `(name, layout, point)` triples: one line per name, in the
/// order names first appear, each line's points in ascending x.
pub fn group_lines(points: impl IntoIterator<Item = (String, String, (f64, f64))>) -> Vec<Line> {
    let mut out: Vec<Line> = Vec::new();
    for (name, layout, point) in points {
        match out.iter_mut().find(|l| l.name == name) {
            Some(l) => l.points.push(point),
            None => out.push(Line {
                name,
                layout,
                points: vec![point],
            }),
        }
    }
    for l in &mut out {
        l.points.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    out
}

/// The series of a sweep's plot: each row's parameters as `(name, shown
/// value)` pairs (`("cores", "10 cores")`), in one order for every row.
/// Returns each row's series name, made of the values of the parameters
/// that vary over the rows (all of them, where none varies), and the
/// legend's heading naming those parameters (`series: layout, cores`).
pub fn sweep_series(rows: &[Vec<(&str, String)>]) -> (Vec<String>, String) {
    let width = rows.first().map_or(0, Vec::len);
    let varies: Vec<bool> = (0..width)
        .map(|i| {
            rows.iter()
                .any(|r| r.get(i).map(|p| &p.1) != rows[0].get(i).map(|p| &p.1))
        })
        .collect();
    let any = varies.iter().any(|v| *v);
    let shown = |i: usize| !any || varies[i];
    let names = rows
        .iter()
        .map(|r| {
            r.iter()
                .enumerate()
                .filter(|(i, _)| shown(*i))
                .map(|(_, p)| p.1.clone())
                .collect::<Vec<_>>()
                .join(", ")
        })
        .collect();
    let heading = rows.first().map_or_else(String::new, |r| {
        let params: Vec<&str> = r
            .iter()
            .enumerate()
            .filter(|(i, _)| shown(*i))
            .map(|(_, p)| p.0)
            .collect();
        format!("series: {}", params.join(", "))
    });
    (names, heading)
}

/// The x range of a line chart: the data's span with a margin of 5 % on
/// each side (100 to 200 validators: 95 to 205, not 0 to 220).
pub fn x_span(xs: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = xs
        .filter(|x| x.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
            (lo.min(x), hi.max(x))
        });
    if lo > hi {
        return (0.0, 1.0);
    }
    let pad = if hi > lo { (hi - lo) * 0.05 } else { 1.0 };
    (lo - pad, hi + pad)
}

/// What a line chart shows: its title, the axes, and whether the y axis
/// spans the data (approval times: a difference of 1 % stays visible) or
/// starts at 0 (CPU, bytes).
pub struct LineChart<'a> {
    pub title: &'a str,
    pub x_desc: &'a str,
    pub y_desc: &'a str,
    pub y_from_data: bool,
}

/// A line per series against a numeric x (e.g. validators), each point
/// marked, the legend in the strip beside the data; colours by layout as
/// in every other plot of the reports. The classic layout's line is dashed
/// with hollow markers, so it stays visible where it runs under another;
/// the y axis from 0.
pub fn line_chart(title: &str, x_desc: &str, y_desc: &str, lines: &[Line]) -> Result<String> {
    let chart = LineChart {
        title,
        x_desc,
        y_desc,
        y_from_data: false,
    };
    line_chart_with(&chart, lines, &[])
}

/// A line chart with reference lines `marks` (e.g. each layout's crypto
/// floor), each thin and dashed in the colour of its `layout`.
pub fn line_chart_with(chart: &LineChart<'_>, lines: &[Line], marks: &[Line]) -> Result<String> {
    line_chart_drawn(chart, lines, marks, None, &[])
}

/// [`line_chart_with`] whose whole x values 1, 2, ... are named by
/// `x_names` (e.g. a result's commit and date); the other values as
/// numbers.
pub fn line_chart_named(
    chart: &LineChart<'_>,
    lines: &[Line],
    marks: &[Line],
    x_names: &[String],
) -> Result<String> {
    line_chart_drawn(chart, lines, marks, None, x_names)
}

/// A line chart whose legend opens with `heading` (what its lines vary
/// by, e.g. `series: layout, schedule, cores`). Each line has its colour
/// (by its `layout` key: lines of one key share it) and its marker (by its
/// place: circle, square, triangle, cross in turn), both shown in the
/// legend beside its name.
pub fn line_chart_legend(
    chart: &LineChart<'_>,
    lines: &[Line],
    marks: &[Line],
    heading: Option<&str>,
) -> Result<String> {
    line_chart_drawn(chart, lines, marks, heading, &[])
}

/// The line chart every public form above draws: an optional legend
/// heading, optional names for whole x values.
fn line_chart_drawn(
    chart: &LineChart<'_>,
    lines: &[Line],
    marks: &[Line],
    heading: Option<&str>,
    x_names: &[String],
) -> Result<String> {
    let title = chart.title;
    let layouts: Vec<String> = lines.iter().map(|l| l.layout.clone()).collect();
    let pts = || {
        lines
            .iter()
            .chain(marks)
            .flat_map(|l| l.points.iter().copied())
    };
    let (x_lo, x_hi) = x_span(pts().map(|p| p.0));
    let (y_lo, y_hi) = if chart.y_from_data {
        // The data's span, not below 0 where no value is.
        let (lo, hi) = x_span(pts().map(|p| p.1));
        let floor = if pts().all(|p| p.1 >= 0.0) { 0.0 } else { lo };
        (lo.max(floor), hi)
    } else {
        let hi = pts().map(|p| p.1).fold(0.0, f64::max);
        (0.0, if hi > 0.0 { hi * 1.08 } else { 1.0 })
    };
    // Validators, blocks, seconds of whole ticks: integer ticks only.
    let whole_x = pts().all(|p| p.0.fract() == 0.0);
    let whole_y = pts().all(|p| p.1.fract() == 0.0);
    let strip = Strip::of(lines.iter().chain(marks).map(|l| l.name.as_str()), heading);
    draw_sized(title, strip, |plot, legend| {
        let mut c = ChartBuilder::on(plot)
            .caption(title, ("sans-serif", 17))
            .margin(10)
            .x_label_area_size(36)
            .y_label_area_size(60)
            .build_cartesian_2d(x_lo..x_hi, y_lo..y_hi)?;
        let format = |whole: bool| -> &dyn Fn(&f64) -> String {
            if whole {
                &integer_tick
            } else {
                &tick
            }
        };
        let named = |x: &f64| {
            let i = x.round();
            match (i >= 1.0 && (x - i).abs() < 1e-9).then(|| x_names.get(i as usize - 1)) {
                Some(Some(name)) => name.clone(),
                _ => format(whole_x)(x),
            }
        };
        c.configure_mesh()
            .x_desc(chart.x_desc)
            .y_desc(chart.y_desc)
            .x_label_formatter(&named)
            .y_label_formatter(format(whole_y))
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        let mut y = 40;
        if let Some(h) = heading {
            legend.draw(&Text::new(h.to_owned(), (4, y - 4), ("sans-serif", 12)))?;
            y += 18;
        }
        for (i, l) in lines.iter().enumerate() {
            let colour = layout_colour(&l.layout, &layouts);
            // Classic dashed with hollow markers (as in every plot), so it
            // stays visible where it runs under another line.
            let classic = l.layout == "classic" || l.name.starts_with("classic");
            let marker = Marker::of(i);
            if classic {
                c.draw_series(DashedLineSeries::new(
                    l.points.iter().copied(),
                    8,
                    5,
                    colour.stroke_width(2),
                ))?;
            } else {
                c.draw_series(LineSeries::new(
                    l.points.iter().copied(),
                    colour.stroke_width(2),
                ))?;
            }
            draw_markers(&mut c, &l.points, marker, colour, classic)?;
            legend_line(legend, y, (colour, 2), classic)?;
            legend_marker(legend, (13, y + 6), marker, colour, classic)?;
            legend.draw(&Text::new(l.name.clone(), (26, y), ("sans-serif", 13)))?;
            y += 20;
        }
        for m in marks {
            let colour = layout_colour(&m.layout, &layouts);
            c.draw_series(DashedLineSeries::new(
                m.points.iter().copied(),
                DASH.0,
                DASH.1,
                colour.stroke_width(1),
            ))?;
            legend_line(legend, y, (colour, 1), true)?;
            legend.draw(&Text::new(m.name.clone(), (26, y), ("sans-serif", 13)))?;
            y += 20;
        }
        Ok(())
    })
}

/// The spread of one group of a [`box_chart`]: the least, the median, the
/// 99th percentile and the largest value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct BoxSpread {
    pub min: f64,
    pub p50: f64,
    pub p99: f64,
    pub max: f64,
}

/// A box per group: a whisker from min to max, a box from p50 to p99, a
/// bar across at p50; the y axis spans the data (not from 0), so spreads
/// of a few ms on 12 s stay visible; `None`: nothing to draw there.
pub(crate) fn box_chart(chart: &BarChart<'_>, boxes: &[Option<BoxSpread>]) -> Result<String> {
    let title = chart.title;
    let colour = layout_colour("classic", &[]);
    let (lo, hi) = x_span(boxes.iter().flatten().flat_map(|b| [b.min, b.max]));
    let (lo, hi) = (lo.max(0.0), hi);
    draw(title, |plot, legend| {
        let n = chart.groups.len().max(1);
        let mut c = ChartBuilder::on(plot)
            .caption(title, ("sans-serif", 17))
            .margin(10)
            .x_label_area_size(36)
            .y_label_area_size(60)
            .build_cartesian_2d(0.5f64..n as f64 + 0.5, lo..hi)?;
        let x_format = |x: &f64| group_label(chart.groups, *x);
        c.configure_mesh()
            .x_labels(n.clamp(2, 25))
            .x_label_formatter(&x_format)
            .y_label_formatter(&tick)
            .x_desc(chart.x_desc)
            .y_desc(chart.y_desc)
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        let half = 0.25;
        for (i, b) in boxes.iter().enumerate() {
            let Some(b) = b else { continue };
            let x = i as f64 + 1.0;
            c.draw_series([
                PathElement::new(vec![(x, b.min), (x, b.max)], BLACK.stroke_width(1)),
                PathElement::new(
                    vec![(x - half / 2.0, b.min), (x + half / 2.0, b.min)],
                    BLACK.stroke_width(1),
                ),
                PathElement::new(
                    vec![(x - half / 2.0, b.max), (x + half / 2.0, b.max)],
                    BLACK.stroke_width(1),
                ),
            ])?;
            c.draw_series(std::iter::once(Rectangle::new(
                [(x - half, b.p50), (x + half, b.p99)],
                colour.mix(0.5).filled(),
            )))?;
            c.draw_series(std::iter::once(PathElement::new(
                vec![(x - half, b.p50), (x + half, b.p50)],
                colour.stroke_width(3),
            )))?;
        }
        let mut y = 40;
        let entries: [(&str, ShapeStyle); 3] = [
            ("min to max (whisker)", BLACK.stroke_width(1)),
            ("p50 to p99 (box)", colour.mix(0.5).filled()),
            ("p50 (bar)", colour.stroke_width(3)),
        ];
        for (name, style) in entries {
            if style.filled {
                legend.draw(&Rectangle::new([(6, y), (20, y + 12)], style))?;
            } else {
                legend.draw(&PathElement::new(vec![(4, y + 6), (22, y + 6)], style))?;
            }
            legend.draw(&Text::new(name, (26, y), ("sans-serif", 12)))?;
            y += 20;
        }
        if boxes.iter().all(Option::is_none) {
            plot.draw(&Text::new(
                "no validator approved any block",
                ((WIDTH / 2 - 160) as i32, (HEIGHT / 2) as i32),
                ("sans-serif", 15),
            ))?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_x_axis_spans_the_data() {
        assert_eq!(x_span([100.0, 200.0].into_iter()), (95.0, 205.0));
        assert_eq!(x_span([20.0].into_iter()), (19.0, 21.0));
        assert_eq!(x_span(std::iter::empty()), (0.0, 1.0));
    }

    #[test]
    fn ticks_are_as_short_as_their_values() {
        assert_eq!(tick(&14000.0), "14000");
        assert_eq!(tick(&0.30000000000000004), "0.3");
        assert_eq!(tick(&0.0025), "0.0025");
        assert_eq!(tick(&-0.0), "0");
        assert_eq!(integer_tick(&50.0), "50");
        assert_eq!(integer_tick(&52.5), "");
    }

    /// The text elements of an SVG (plotters writes each on a line of its
    /// own between `>` and `</text>`).
    fn texts(svg: &str) -> Vec<&str> {
        svg.split("</text>")
            .filter_map(|t| t.rsplit_once(">\n").map(|(_, v)| v.trim()))
            .collect()
    }

    #[test]
    fn a_line_chart_of_validators_has_integer_ticks_and_its_y_axis_may_span_the_data() {
        let lines = [Line {
            name: "p50".into(),
            layout: "p50".into(),
            points: vec![(50.0, 12.52), (100.0, 12.56)],
        }];
        let svg = line_chart("t", "validators", "s", &lines).unwrap();
        let all = texts(&svg);
        assert!(all.contains(&"50") && all.contains(&"100"), "{all:?}");
        assert!(!all.iter().any(|t| t.ends_with(".0")), "{all:?}");
        // From 0: 12.5 s and 12.6 s share a tick; from the data they do not.
        let chart = LineChart {
            title: "t",
            x_desc: "validators",
            y_desc: "s",
            y_from_data: true,
        };
        let spanning = texts(&line_chart_with(&chart, &lines, &[]).unwrap()).join(" ");
        assert!(
            spanning.contains("12.53") || spanning.contains("12.54"),
            "{spanning}"
        );
        assert!(!all.join(" ").contains("12.53"), "{all:?}");
    }

    #[test]
    fn a_box_per_group_spans_the_data() {
        let groups = vec!["1".to_owned(), "2".to_owned()];
        let chart = BarChart {
            title: "Approval",
            x_desc: "block",
            y_desc: "ms",
            groups: &groups,
            integer: false,
        };
        let b = BoxSpread {
            min: 12_527.0,
            p50: 12_540.0,
            p99: 12_560.0,
            max: 12_563.0,
        };
        let svg = box_chart(&chart, &[Some(b), None]).unwrap();
        let all = texts(&svg);
        // Ticks inside 12 527..12 563, none at 0.
        assert!(!all.contains(&"0"), "{all:?}");
        assert!(all.iter().any(|t| t.starts_with("1254")), "{all:?}");
        assert!(all.contains(&"p50 to p99 (box)"), "{all:?}");
    }
}
