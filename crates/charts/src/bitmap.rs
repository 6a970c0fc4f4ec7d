//! Matrix charts as one image. On a canvas, a matrix drawn as n² plotters rectangles costs a
//! colour string and a `fillRect` call per cell; the page instead draws the axes with
//! plotters (`cells` = false) and puts this RGBA image into the chart's plotting area
//! ([`super::Frame`]) in one call. The SVG downloads keep the rectangles.
//!
//! Pixel (x, y) of a w × h image shows cell (row, col) = (⌊y·rows/h⌋, ⌊x·cols/w⌋): the cell
//! under the pixel's top-left corner, the same cell hover read-outs name. A cell's value v
//! (already divided by the chart's maximum) is coloured viridis(v) through a 256-step table;
//! cells without a value (the gap between two panels, a missing encoding) stay white.

use super::viridis;
use plotters::style::RGBColor;

/// The RGBA bytes (row-major, 4 per pixel) of a `w` × `h` image of a `rows` × `cols` grid
/// whose cell (row, col) has the value `cell(row, col)` ∈ [0, 1], or none.
pub fn rgba(w: usize, h: usize, (rows, cols): (usize, usize), cell: impl Fn(usize, usize) -> Option<f64>) -> Vec<u8> {
    let lut: Vec<RGBColor> = (0..256).map(|k| viridis(k as f64 / 255.0)).collect();
    let mut data = vec![255u8; w * h * 4];
    if rows == 0 || cols == 0 {
        return data;
    }
    let col_of: Vec<usize> = (0..w).map(|x| (x * cols / w).min(cols - 1)).collect();
    for y in 0..h {
        let row = (y * rows / h).min(rows - 1);
        for (x, &col) in col_of.iter().enumerate() {
            let Some(v) = cell(row, col) else { continue };
            let RGBColor(r, g, b) = lut[(v * 255.0).round().clamp(0.0, 255.0) as usize];
            let o = (y * w + x) * 4;
            data[o..o + 3].copy_from_slice(&[r, g, b]);
        }
    }
    data
}

/// The heatmap of [`super::heatmap`]: D_ij / max D.
pub fn heatmap(w: usize, h: usize, matrix: &[Vec<f64>]) -> Vec<u8> {
    let n = matrix.len();
    let max = matrix.iter().flatten().copied().fold(0.0f64, f64::max).max(1e-300);
    rgba(w, h, (n, n), |i, j| matrix[i].get(j).map(|v| v / max))
}

/// The two panels of [`super::geometry_pair`] on its shared scale: columns 0..side show
/// the corpus, column `side` is the white gap, the next `side` columns the encoding.
pub fn geometry_pair(w: usize, h: usize, side: usize, corpus: &[f32], encoding: &[f32]) -> Vec<u8> {
    let max = super::matrix::pair_max(corpus, encoding);
    rgba(w, h, (side, 2 * side + 1), |i, j| {
        let v = match j.cmp(&side) {
            std::cmp::Ordering::Less => corpus.get(i * side + j),
            std::cmp::Ordering::Equal => None,
            std::cmp::Ordering::Greater => encoding.get(i * side + j - side - 1),
        };
        // NaN: a block no position of the encoding covers (a model's layer rows), left blank.
        v.filter(|v| !v.is_nan()).map(|&v| f64::from(v) / max)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pixel(data: &[u8], w: usize, x: usize, y: usize) -> [u8; 3] {
        let o = (y * w + x) * 4;
        [data[o], data[o + 1], data[o + 2]]
    }

    /// viridis(v) at the 256-step table's resolution.
    fn colour(v: f64) -> [u8; 3] {
        let RGBColor(r, g, b) = viridis((v * 255.0).round() / 255.0);
        [r, g, b]
    }

    #[test]
    fn each_pixel_shows_the_cell_under_it() {
        // 3×3 matrix on a 6×6 image: every cell is a 2×2 block of its colour.
        let m: Vec<Vec<f64>> = (0..3).map(|i| (0..3).map(|j| (i * 3 + j) as f64).collect()).collect();
        let img = heatmap(6, 6, &m);
        assert_eq!(img.len(), 6 * 6 * 4);
        for y in 0..6 {
            for x in 0..6 {
                assert_eq!(pixel(&img, 6, x, y), colour(m[y / 2][x / 2] / 8.0), "pixel ({x}, {y})");
                assert_eq!(img[(y * 6 + x) * 4 + 3], 255, "opaque");
            }
        }
    }

    #[test]
    fn the_pair_has_two_panels_on_one_scale_and_a_white_gap() {
        let side = 2;
        let corpus = [0.0f32, 1.0, 2.0, 3.0];
        let encoding = [4.0f32, 2.0, 1.0, 0.0];
        let img = geometry_pair(5, 2, side, &corpus, &encoding);
        let at = |x, y| pixel(&img, 5, x, y);
        assert_eq!(at(1, 1), colour(3.0 / 4.0), "corpus (1, 1)");
        assert_eq!(at(2, 0), [255, 255, 255], "gap");
        assert_eq!(at(3, 0), colour(1.0), "encoding (0, 0), the shared maximum");
        assert_eq!(at(4, 1), colour(0.0));
        // A missing encoding leaves its panel white.
        let img = geometry_pair(5, 2, side, &corpus, &[]);
        assert_eq!(pixel(&img, 5, 4, 1), [255, 255, 255]);
        assert_eq!(pixel(&img, 5, 1, 1), colour(1.0), "the corpus alone sets the scale");
    }

    #[test]
    fn an_empty_matrix_is_a_white_image() {
        assert!(heatmap(4, 3, &[]).iter().all(|&b| b == 255));
    }
}
