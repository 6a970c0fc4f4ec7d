use super::*;
use plotters::coord::Shift;
use posgeo::report::fmt_number;

pub(crate) use posgeo::test_support::report;

fn svg(f: impl FnOnce(&DrawingArea<SVGBackend, Shift>) -> ChartResult) -> (String, Frame) {
    let mut s = String::new();
    let frame = {
        let root = SVGBackend::with_string(&mut s, (640, 400)).into_drawing_area();
        let fr = f(&root).unwrap();
        root.present().unwrap();
        fr
    };
    (s, frame)
}

#[test]
fn every_chart_draws_to_svg_with_its_data() {
    let r = report();
    let (s, f) = svg(|a| stress_bars(a, &r, false));
    assert!(s.contains("sinusoidal") && s.contains("pmds_r"));
    assert!(f.log_y && f.px.0 < f.px.1);
    // The random band is drawn with its numbers, on σ* only.
    let band = r.random_band.as_ref().unwrap().scaled_stress;
    let label = format!("32 random tables: σ* {}–{}", fmt_number(Some(band.min)), fmt_number(Some(band.max)));
    assert!(s.contains(&label), "{label}");
    assert!(!svg(|a| stress_bars(a, &r, true)).0.contains("random tables"));
    let mut bare = r.clone();
    bare.random_band = None;
    assert!(!svg(|a| stress_bars(a, &bare, false)).0.contains("random tables"));
    let (s, _) = svg(|a| heatmap(a, &r.matrix["hellinger"], "hellinger", true, 10));
    assert!(s.matches("<rect").count() >= 100, "10×10 cells");
    let (s, _) = svg(|a| spectrum(a, &r));
    assert!(s.contains(&format!("r_τ = {}", r.effective_rank)));
    let (s, _) = svg(|a| pmds_map(a, &r.pmds_coordinates, None));
    assert!(s.matches("<circle").count() >= r.n);
    let (s, _) = svg(|a| pmds_map_3d(a, &r.pmds_coordinates, View3d::default()).map(|_| Frame::default()));
    assert!(s.matches("<circle").count() >= r.n);
    let blocks: Vec<f32> = (0..36).map(|k| k as f32).collect();
    let (s, f) = svg(|a| geometry_pair(a, 6, (&blocks, &blocks), "rope", true));
    assert!(s.contains("a*·δ of rope") && s.matches("<rect").count() >= 72, "two 6×6 panels");
    assert_eq!((f.x, f.y), ((0.0, 13.0), (6.0, 0.0)));
    let pairs: Vec<(f32, f32)> = vec![(0.1, 0.2), (0.5, 0.4)];
    let (s, _) = svg(|a| shepard(a, "rope", &pairs));
    assert!(s.contains("rope") && s.matches("<circle").count() >= 2);
    for (s, _) in [svg(|a| rank_curve(a, &r)), svg(|a| monotonicity(a, &r)), svg(|a| support(a, &r))] {
        assert!(s.starts_with("<svg") && s.len() > 1000);
    }
}

#[test]
fn the_3d_map_turns_with_its_view() {
    let r = report();
    let area_pixels = |view: View3d| {
        let mut out = String::new();
        let area = SVGBackend::with_string(&mut out, (640, 420)).into_drawing_area();
        pmds_map_3d(&area, &r.pmds_coordinates, view).unwrap()
    };
    let a = area_pixels(View3d::default());
    assert_eq!(a.len(), r.n);
    assert!(a.iter().all(|&(x, y)| (0..640).contains(&x) && (0..420).contains(&y)), "{a:?}");
    // A quarter turn moves the points; a full turn brings them back.
    let quarter = area_pixels(View3d { yaw: 0.6 + std::f64::consts::FRAC_PI_2, pitch: 0.35 });
    let full = area_pixels(View3d { yaw: 0.6 + 2.0 * std::f64::consts::PI, pitch: 0.35 });
    assert_ne!(a, quarter);
    assert!(a.iter().zip(&full).all(|(p, q)| (p.0 - q.0).abs() <= 1 && (p.1 - q.1).abs() <= 1));
}

#[test]
fn frames_invert_pixels_to_data() {
    let f = Frame { px: (100, 300), py: (50, 250), x: (0.0, 10.0), y: (1e-6, 1.0), log_y: true };
    let (x, y) = f.to_data(200, 150).unwrap();
    assert!((x - 5.0).abs() < 1e-12 && (y.log10() + 3.0).abs() < 1e-9);
    assert_eq!(f.to_data(10, 10), None);
}

/// Names from files (a learned table's, later) are text in an SVG export, never markup.
#[test]
fn svg_text_is_escaped() {
    let (s, _) = svg(|a| shepard(a, "<img src=x onerror=alert(1)>&", &[(0.1, 0.2)]));
    assert!(!s.contains("<img"), "{s}");
    assert!(s.contains("&lt;img src=x onerror=alert(1)&gt;&amp;"));
}

#[test]
fn the_layers_chart_reads_every_layer_and_names_the_reference_lines() {
    let mut r = report();
    assert!(LayerCurves::of(&r, false).is_none(), "no model, no curves");
    let (none, _) = svg(|a| layer_stress(a, None));
    assert!(none.contains("no model"));
    r.layers = Some(posgeo::analysis::LayersInfo {
        skip: 0,
        measures: Vec::new(),
        model_type: "bert".into(),
        num_layers: 2,
        hidden_size: 8,
        sequences_used: 10,
        positions: r.n,
        cut: 64,
    });
    for l in 0..=2 {
        for (key, s) in [(format!("layer:{l}"), 0.1 * (l + 1) as f64), (format!("layer-residual:{l}"), 0.05)] {
            let mut e = r.encodings["sinusoidal"].clone();
            e.scaled_stress = s;
            r.encodings.insert(key.clone(), e);
            r.encoding_order.push(key);
        }
    }
    let c = LayerCurves::of(&r, false).unwrap();
    assert_eq!(c.centroid, vec![0.1, 0.2, 0.30000000000000004]);
    assert_eq!(c.worst().map(|w| w.0), Some(2));
    let names: Vec<&str> = c.references.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["sinusoidal", "rope", "alibi"]);
    assert_eq!(c.csv().lines().count(), 1 + 3 + 3);
    let (s, frame) = svg(|a| layer_stress(a, Some(&c)));
    assert!(s.contains("sinusoidal") && s.contains("alibi"), "the reference lines are labelled");
    assert!(frame.x.0 < 0.0 && frame.x.1 > 2.0, "{frame:?}");
}

/// The SVG colour text plotters writes for `c`.
fn hex(c: RGBColor) -> String {
    format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
}

#[test]
fn every_chart_and_the_table_take_an_encodings_colour_from_the_palette() {
    use super::palette::{color_of, css_of, set_theme, DARK, LIGHT};
    let r = report();
    let (bars, _) = svg(|a| stress_bars(a, &r, false));
    let (raw, _) = svg(|a| stress_bars(a, &r, true));
    let (mono, _) = svg(|a| monotonicity(a, &r));
    for name in &r.encoding_order {
        let c = hex(color_of(name));
        assert!(bars.contains(&c) && raw.contains(&c) && mono.contains(&c), "{name}: {c}");
    }
    // Different encodings, different colours (nope is the neutral grey).
    let colours: std::collections::BTreeSet<String> = r.encoding_order.iter().map(|n| css_of(n)).collect();
    assert_eq!(colours.len(), r.encoding_order.len());
    let (rank, _) = svg(|a| rank_curve(a, &r));
    for name in ["sinusoidal", "rope", "alibi", "random", "pmds"] {
        assert!(rank.contains(&hex(color_of(name))), "rank curve: {name}");
    }
    let pairs: Vec<(f32, f32)> = vec![(0.1, 0.2), (0.5, 0.4)];
    let (shep, _) = svg(|a| shepard(a, "alibi", &pairs));
    assert!(shep.contains(&hex(color_of("alibi"))));
    let aligned: Vec<(f32, f32)> = r.pmds_coordinates.iter().map(|c| (c[0] as f32, c[1] as f32)).collect();
    let (map, _) = svg(|a| pmds_map(a, &r.pmds_coordinates, Some(Overlay { name: "rope", points: &aligned })));
    assert!(map.contains(&hex(color_of("rope"))));
    let curves = LayerCurves {
        centroid: vec![0.1, 0.2],
        residual: vec![0.05, 0.1],
        references: vec![("sinusoidal".into(), 0.15), ("learned".into(), 0.3)],
        raw: false,
        measures: vec![(0.25, 3.5), (0.5, 1.5)],
    };
    let csv = curves.csv();
    assert_eq!(
        csv.lines().next(),
        Some("layer,centroid_scaled_stress,residual_scaled_stress,positional_share,effective_dimension")
    );
    assert_eq!(csv.lines().nth(2), Some("1,0.2,0.1,0.5,1.5"), "{csv}");
    let (layers, _) = svg(|a| layer_stress(a, Some(&curves)));
    for name in ["layer:0", "layer-residual:0", "sinusoidal", "learned"] {
        assert!(layers.contains(&hex(color_of(name))), "layers chart: {name}");
    }
    // (The table's rows take theirs from the same function: web::view::table's tests.)
    // The dark theme draws the frame dark, and random (black on white) turns light.
    set_theme(DARK);
    let (dark, _) = svg(|a| stress_bars(a, &r, false));
    set_theme(LIGHT);
    assert!(dark.contains(&hex(DARK.background)) && !dark.contains(&hex(LIGHT.background)));
    assert_ne!(hex(DARK.text), hex(LIGHT.text));
    assert!(dark.contains(&hex(DARK.text)));
}
