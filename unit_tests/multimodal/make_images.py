"""Draws the multi-modal unit tests' charts and tables into PNGs beside this script (deterministic: fixed data,
fixed size, no timestamps). Run: python unit_tests/multimodal/make_images.py"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
# The PNGs carry no software version or date, so a re-run with the same matplotlib writes the same bytes.
METADATA = {"Software": None}


def rainfall(path: Path) -> None:
    """A bar chart whose answer (the wettest month and its rainfall) is only in the image."""
    import matplotlib.pyplot as plt

    months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun"]
    millimetres = [98, 72, 60, 55, 30, 12]
    fig, ax = plt.subplots(figsize=(6, 4), dpi=100)
    bars = ax.bar(months, millimetres, color="#4a7ab5")
    ax.bar_label(bars, labels=[f"{v} mm" for v in millimetres])
    ax.set_title("Monthly rainfall in Lisbon, January-June 2023")
    ax.set_ylabel("Rainfall (mm)")
    ax.set_ylim(0, 115)
    fig.tight_layout()
    fig.savefig(path, metadata=METADATA)
    plt.close(fig)


def ferry_fares(path: Path) -> None:
    """A fare table drawn as an image: the prices are only in the picture."""
    import matplotlib.pyplot as plt

    rows = [["Adult", "4.50 EUR"], ["Child (4-11)", "2.20 EUR"], ["Senior (65+)", "3.00 EUR"], ["Bicycle", "1.50 EUR"]]
    fig, ax = plt.subplots(figsize=(5, 2.6), dpi=100)
    ax.axis("off")
    ax.set_title("Harbour Line ferry: single-ticket fares")
    table = ax.table(cellText=rows, colLabels=["Ticket", "Fare"], loc="center", cellLoc="left")
    table.scale(1, 1.6)
    table.set_fontsize(12)
    fig.tight_layout()
    fig.savefig(path, metadata=METADATA)
    plt.close(fig)


def population(path: Path) -> None:
    """A line chart on another subject: an irrelevant image for both questions."""
    import matplotlib.pyplot as plt

    years = [2000, 2005, 2010, 2015, 2020]
    people = [12.1, 12.8, 13.9, 14.2, 15.0]
    fig, ax = plt.subplots(figsize=(6, 4), dpi=100)
    ax.plot(years, people, marker="o", color="#b5644a")
    ax.set_title("Population of Tavira municipality (thousands)")
    ax.set_xlabel("Year")
    ax.set_ylabel("Residents (thousands)")
    fig.tight_layout()
    fig.savefig(path, metadata=METADATA)
    plt.close(fig)


def energy_mix(path: Path) -> None:
    """A pie chart on another subject: a second irrelevant image."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 5), dpi=100)
    ax.pie([41, 27, 18, 14], labels=["Wind", "Hydro", "Solar", "Gas"], autopct="%d%%", startangle=90)
    ax.set_title("Electricity generation by source, 2022")
    fig.tight_layout()
    fig.savefig(path, metadata=METADATA)
    plt.close(fig)


def main() -> None:
    import matplotlib

    matplotlib.use("Agg")
    for name, draw in (
        ("rainfall.png", rainfall),
        ("ferry_fares.png", ferry_fares),
        ("population.png", population),
        ("energy_mix.png", energy_mix),
    ):
        draw(HERE / name)
        print(HERE / name)


if __name__ == "__main__":
    main()
