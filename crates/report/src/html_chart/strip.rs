//! The size of a plot's SVG from its legend strip: taller where the
//! entries need it, wider where the longest text does, so no entry is off
//! the picture or cut on the right (the plot area as wide as ever).

use super::{HEIGHT, LEGEND_WIDTH, WIDTH};

/// What a legend strip holds: its entries (20 px each, from 40 px down,
/// a heading 18 px more) and its longest text in characters.
#[derive(Clone, Copy, Default)]
pub(super) struct Strip {
    entries: usize,
    heading: bool,
    longest: usize,
}

impl Strip {
    /// Of a legend's texts (the heading, if any, first).
    pub(super) fn of<'a>(texts: impl IntoIterator<Item = &'a str>, heading: Option<&str>) -> Strip {
        let texts: Vec<&str> = texts.into_iter().collect();
        Strip {
            entries: texts.len(),
            heading: heading.is_some(),
            longest: texts
                .iter()
                .chain(heading.as_ref())
                .map(|t| t.chars().count())
                .max()
                .unwrap_or(0),
        }
    }

    /// The SVG's size: the reports' own, taller where the entries need it
    /// (so the last is not off the picture), wider where the longest text
    /// needs it (about 7 px a character at 13 px, after the 26 px sample),
    /// the plot area as wide as ever.
    pub(super) fn size(self) -> (u32, u32) {
        let rows = u32::try_from(self.entries).unwrap_or(u32::MAX);
        let height = (40 + 18 * u32::from(self.heading))
            .saturating_add(rows.saturating_mul(20))
            .saturating_add(10);
        let text = u32::try_from(self.longest).unwrap_or(u32::MAX);
        let strip = 26u32
            .saturating_add(text.saturating_mul(7))
            .saturating_add(10);
        (
            WIDTH - LEGEND_WIDTH + strip.max(LEGEND_WIDTH),
            height.max(HEIGHT),
        )
    }
}

#[cfg(test)]
mod tests {
    use crate::html_chart::{line_chart_legend, Line, LineChart, HEIGHT, WIDTH};

    /// A text of an SVG: its x, y and content.
    type Placed = (f64, f64, String);

    /// The SVG's width and height, and each text's x, y and content.
    fn placed(svg: &str) -> ((f64, f64), Vec<Placed>) {
        let attr = |tag: &str, name: &str| -> f64 {
            let at = tag.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
            tag[at..].split('"').next().unwrap().parse().unwrap()
        };
        let head = svg.split('>').next().unwrap();
        let size = (attr(head, "width"), attr(head, "height"));
        let texts = svg
            .split("<text")
            .skip(1)
            .map(|t| {
                let content = t.split("</text>").next().unwrap();
                let content = content.rsplit_once(">\n").map_or("", |(_, v)| v.trim());
                (attr(t, "x"), attr(t, "y"), content.to_owned())
            })
            .collect();
        (size, texts)
    }

    /// Issue 60: 18 lines in a legend (the sweep's CPU plot) all inside
    /// the picture; a long name (`--beside`'s) not cut on the right.
    #[test]
    fn every_legend_entry_is_inside_the_picture() {
        let line = |i: usize, name: String| Line {
            name,
            layout: format!("l{i}"),
            points: vec![(40.0, i as f64), (100.0, i as f64 + 1.0)],
        };
        let many: Vec<Line> = (0..18)
            .map(|i| line(i, format!("parallel/4, {i} cores")))
            .collect();
        let chart = LineChart {
            title: "Node CPU per block against validators",
            x_desc: "validators",
            y_desc: "s",
            y_from_data: false,
        };
        let long = "parallel/4, 8 cores, a job a moment, beside the classic run".to_owned();
        for (lines, heading) in [
            (many, Some("series: layout, cores")),
            (vec![line(0, "classic".into()), line(1, long.clone())], None),
            (vec![line(0, "classic".into())], None),
        ] {
            let svg = line_chart_legend(&chart, &lines, &[], heading).unwrap();
            let ((width, height), texts) = placed(&svg);
            for l in &lines {
                let (x, y, _) = texts.iter().find(|t| t.2 == l.name).unwrap();
                assert!(*y + 14.0 <= height, "{} at {y} of {height}", l.name);
                let right = x + 7.0 * l.name.chars().count() as f64;
                assert!(right <= width, "{} to {right} of {width}", l.name);
            }
            // A small legend keeps the reports' size.
            if lines.len() == 1 {
                assert_eq!((width, height), (f64::from(WIDTH), f64::from(HEIGHT)));
            }
        }
    }
}
