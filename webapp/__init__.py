"""Helpers of the Streamlit page (app.py): labels in two languages, drawing, hand editing."""
