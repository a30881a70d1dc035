//! The mesh as a picture, for fleets too big for a table of symbols: every
//! cell of the matrix (witness rows × target columns, grouped by country)
//! is one square coloured by what it says, drawn as an SVG from the same
//! one-character-per-cell data (`MeshMatrix::cells`). A row's cells of one
//! kind form runs, and each kind is one path of runs, so a 1000-server
//! mesh is a few hundred kilobytes, not a million elements. The picture is
//! a fixed size, so a click on it names one cell (see [`Picture::cell_at`]).

use crate::markup::escape;
use crate::views::MeshMatrix;
use meshwatch::verdict::MeshCell;
use std::fmt::Write as _;

/// Up to this many servers the mesh page shows the matrix as a table of
/// symbols; beyond, as a picture with a table for a chosen server.
pub const TABLE_MAX_SERVERS: usize = 60;

/// Room for the country labels: above the columns and left of the rows.
const TOP: u32 = 16;
const LEFT: u32 = 28;

/// The colour of each kind of cell. Reaching is the background; the same
/// colours make the page's legend.
pub fn colour(cell: MeshCell) -> &'static str {
    match cell {
        MeshCell::Reaches => "#a7f3d0",
        MeshCell::Failing(_) => "#f59e0b",
        MeshCell::Sustained => "#dc2626",
        MeshCell::Discarded => "#64748b",
        MeshCell::NotProbed => "#e2e8f0",
        MeshCell::Itself => "#ffffff",
    }
}

/// The kinds drawn over the background, in drawing order.
const OVERLAYS: [MeshCell; 5] = [
    MeshCell::NotProbed,
    MeshCell::Failing(1),
    MeshCell::Sustained,
    MeshCell::Discarded,
    MeshCell::Itself,
];

/// The picture's geometry for a matrix of `servers` servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Picture {
    pub servers: usize,
    /// Pixels per cell side.
    pub cell: u32,
}

impl Picture {
    pub fn of(servers: usize) -> Picture {
        // About 800 px across, a cell never under one pixel.
        let cell = u32::try_from(800 / servers.max(1))
            .unwrap_or(1)
            .clamp(1, 12);
        Picture { servers, cell }
    }

    pub fn width(&self) -> u32 {
        LEFT + self.side()
    }

    pub fn height(&self) -> u32 {
        TOP + self.side()
    }

    fn side(&self) -> u32 {
        u32::try_from(self.servers)
            .unwrap_or(u32::MAX)
            .saturating_mul(self.cell)
    }

    /// The (witness, target) under pixel (`x`, `y`) of the picture, if a
    /// cell is there.
    pub fn cell_at(&self, x: u32, y: u32) -> Option<(usize, usize)> {
        let (x, y) = (x.checked_sub(LEFT)?, y.checked_sub(TOP)?);
        let (target, witness) = ((x / self.cell) as usize, (y / self.cell) as usize);
        (target < self.servers && witness < self.servers).then_some((witness, target))
    }
}

/// Whether a cell is of `kind` as the picture and its counts see it
/// (every failing streak length is one kind).
pub fn same_kind(cell: MeshCell, kind: MeshCell) -> bool {
    matches!((cell, kind), (MeshCell::Failing(_), MeshCell::Failing(_))) || cell == kind
}

/// The matrix as an SVG document (`image/svg+xml`).
pub fn svg(matrix: &MeshMatrix) -> String {
    let n = matrix.servers.len();
    let picture = Picture::of(n);
    let (width, height, cell) = (picture.width(), picture.height(), picture.cell);
    let mut out = String::with_capacity(64 * 1024);
    let _ = write!(
        out,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" shape-rendering="crispEdges">"##
    );
    let _ = write!(
        out,
        r#"<g transform="translate({LEFT} {TOP}) scale({cell})"><rect width="{n}" height="{n}" fill="{}"/>"#,
        colour(MeshCell::Reaches)
    );
    let cells = matrix.cells.as_bytes();
    for kind in OVERLAYS {
        let mut path = String::new();
        for row in 0..n {
            let line = &cells[(row * n).min(cells.len())..((row + 1) * n).min(cells.len())];
            let mut column = 0;
            while column < line.len() {
                let here = MeshCell::from_char(char::from(line[column]));
                if !here.is_some_and(|c| same_kind(c, kind)) {
                    column += 1;
                    continue;
                }
                let start = column;
                while column < line.len()
                    && MeshCell::from_char(char::from(line[column]))
                        .is_some_and(|c| same_kind(c, kind))
                {
                    column += 1;
                }
                let run = column - start;
                let _ = write!(path, "M{start} {row}h{run}v1h-{run}z");
            }
        }
        if !path.is_empty() {
            let _ = write!(out, r#"<path fill="{}" d="{path}"/>"#, colour(kind));
        }
    }
    out.push_str("</g>");
    // A line where the country changes, and the country at the start of
    // each group, on both axes.
    let side = picture.side();
    let mut lines = String::new();
    let mut labels = String::new();
    for (i, server) in matrix.servers.iter().enumerate() {
        let starts = i == 0 || matrix.servers[i - 1].country != server.country;
        if !starts {
            continue;
        }
        let at = u32::try_from(i).unwrap_or(u32::MAX).saturating_mul(cell);
        if i > 0 {
            let _ = write!(
                lines,
                "M{} {TOP}v{side}M{LEFT} {}h{side}",
                LEFT + at,
                TOP + at
            );
        }
        let country = escape(&server.country);
        let _ = write!(
            labels,
            r#"<text x="{}" y="{}">{country}</text><text x="2" y="{}">{country}</text>"#,
            LEFT + at + 1,
            TOP - 4,
            TOP + at + 10
        );
    }
    if !lines.is_empty() {
        let _ = write!(
            out,
            r##"<path d="{lines}" stroke="#334155" stroke-width="1" fill="none"/>"##
        );
    }
    let _ = write!(
        out,
        r##"<g font-family="sans-serif" font-size="10" fill="#334155">{labels}</g></svg>"##
    );
    out
}

/// What the picture of `matrix` is drawn from, as a number: equal
/// matrices draw the same picture. A multiply-rotate hash eight cells at a
/// time: a million cells take a fraction of a millisecond.
pub fn fingerprint(matrix: &MeshMatrix) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mix = |hash: u64, word: u64| (hash ^ word).wrapping_mul(K).rotate_left(29);
    let mut hash = mix(0, matrix.servers.len() as u64);
    for server in &matrix.servers {
        for part in [server.id.as_str(), server.country.as_str()] {
            for chunk in part.as_bytes().chunks(8) {
                let mut word = [0u8; 8];
                word[..chunk.len()].copy_from_slice(chunk);
                hash = mix(hash, u64::from_le_bytes(word));
            }
            hash = mix(hash, 0xFF);
        }
    }
    let cells = matrix.cells.as_bytes();
    let mut words = cells.chunks_exact(8);
    for word in words.by_ref() {
        hash = mix(
            hash,
            u64::from_le_bytes(word.try_into().unwrap_or_default()),
        );
    }
    for byte in words.remainder() {
        hash = mix(hash, u64::from(*byte));
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::views::ServerRef;
    use meshwatch::ids::ServerId;

    fn matrix(countries: &[&str], cells: &str) -> MeshMatrix {
        MeshMatrix {
            servers: countries
                .iter()
                .enumerate()
                .map(|(i, c)| ServerRef {
                    id: ServerId::parse(&format!("s{i}")).expect("slug"),
                    name: format!("Server {i}"),
                    country: (*c).to_owned(),
                })
                .collect(),
            cells: cells.to_owned(),
            failure_streak: 3,
        }
    }

    #[test]
    fn each_kind_is_one_path_of_row_runs() {
        // Rows " ooxx", "o 12-", "dd oo", "xxxx ", "oooo ".
        let m = matrix(&["DE", "DE", "NL", "NL", "NL"], " ooxxo 12-dd ooxxxx oooo ");
        let svg = svg(&m);
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        let path = |kind: MeshCell| {
            let marker = format!(r#"<path fill="{}" d=""#, colour(kind));
            let start = svg.find(&marker).map(|i| i + marker.len())?;
            Some(svg[start..].split('"').next()?.to_owned())
        };
        assert_eq!(
            path(MeshCell::Sustained).as_deref(),
            Some("M3 0h2v1h-2zM0 3h4v1h-4z"),
            "runs of ✗, row by row"
        );
        assert_eq!(
            path(MeshCell::Failing(1)).as_deref(),
            Some("M2 1h2v1h-2z"),
            "streaks of any length are one kind"
        );
        assert_eq!(path(MeshCell::Discarded).as_deref(), Some("M0 2h2v1h-2z"));
        assert_eq!(path(MeshCell::NotProbed).as_deref(), Some("M4 1h1v1h-1z"));
        // 12 px cells: NL starts at the third row and column.
        assert!(svg.contains(r#"<text x="53" y="12">NL</text><text x="2" y="50">NL</text>"#));
        assert!(
            svg.contains(r#"d="M52 16v60M28 40h60""#),
            "a line between DE and NL"
        );
    }

    #[test]
    fn the_fingerprint_follows_every_cell_and_server() {
        let m = matrix(&["DE", "NL"], " oo ");
        let same = matrix(&["DE", "NL"], " oo ");
        assert_eq!(fingerprint(&m), fingerprint(&same));
        assert_ne!(fingerprint(&m), fingerprint(&matrix(&["DE", "NL"], " ox ")));
        assert_ne!(fingerprint(&m), fingerprint(&matrix(&["DE", "FI"], " oo ")));
    }

    #[test]
    fn a_click_names_the_cell_under_it() {
        let picture = Picture::of(1000);
        assert_eq!(picture.cell, 1);
        assert_eq!(picture.width(), 1028);
        assert_eq!(picture.cell_at(LEFT, TOP), Some((0, 0)));
        assert_eq!(picture.cell_at(LEFT + 999, TOP + 5), Some((5, 999)));
        assert_eq!(
            picture.cell_at(LEFT + 1000, TOP),
            None,
            "past the last column"
        );
        assert_eq!(picture.cell_at(3, TOP + 2), None, "on a label");
        let small = Picture::of(100);
        assert_eq!(small.cell, 8);
        assert_eq!(small.cell_at(LEFT + 17, TOP + 8), Some((1, 2)));
    }
}
