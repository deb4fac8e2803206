"""The page's few layout rules: tile pictures in pills at a size a finger can tap (50 px high, 37 px wide), and
for a phone (390 px wide) a compact header, so that after a photo the hand, its total and the Record button fit
in two screens. Streamlit's own spacing is kept everywhere else."""

PHONE_CSS = """<style>
/* tile pictures in pills (the tiles to tap, their other faces, the palette): large enough to tap and to read */
[data-testid="stButtonGroup"] button:has(img) { min-height: 58px !important; padding: 3px 3px !important;
  border-radius: 6px !important; }
[data-testid="stButtonGroup"] button img { height: 50px !important; max-height: 50px !important;
  width: auto !important; }
@media (max-width: 640px) {
  [data-testid="stMainBlockContainer"] { padding-top: 1.2rem !important; padding-bottom: 2rem !important; }
  h1 { font-size: 1.45rem !important; padding: 0.2rem 0 0.4rem 0 !important; }
  h3 { font-size: 1.15rem !important; padding: 0.5rem 0 0.2rem 0 !important; }
}
</style>"""
