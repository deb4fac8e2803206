"""The page's few layout rules for a phone (390 px wide): a compact header, so that after a photo the hand, its
total and the Record button fit in two screens. Streamlit's own spacing is kept everywhere else."""

PHONE_CSS = """<style>
@media (max-width: 640px) {
  [data-testid="stMainBlockContainer"] { padding-top: 1.2rem !important; padding-bottom: 2rem !important; }
  h1 { font-size: 1.45rem !important; padding: 0.2rem 0 0.4rem 0 !important; }
  h3 { font-size: 1.15rem !important; padding: 0.5rem 0 0.2rem 0 !important; }
}
</style>"""
