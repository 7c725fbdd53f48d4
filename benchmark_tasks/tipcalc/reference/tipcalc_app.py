"""A tip calculator served by Flask: the calculator page and the history of calculations."""

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from flask import Flask, render_template, request

app = Flask(__name__)
HISTORY = []  # (bill, tip percent, people, total, per person), oldest first
CENT = Decimal("0.01")


def parse(form):
    """The bill, tip percentage and number of people of ``form``; ValueError says what's wrong."""
    try:
        bill = Decimal(form.get("bill", ""))
        tip = Decimal(form.get("tip", ""))
    except InvalidOperation:
        raise ValueError("Enter numbers for the bill and the tip.") from None
    if not bill.is_finite() or bill <= 0:
        raise ValueError("The bill must be a positive amount.")
    if not tip.is_finite() or tip < 0:
        raise ValueError("The tip cannot be negative.")
    people = form.get("people", "").strip()
    if not people.isdigit() or int(people) < 1:
        raise ValueError("The number of people must be a whole number of at least 1.")
    return bill, tip, int(people)


def calculate(bill, tip, people):
    """The tip, the total and each person's share, rounded to cents."""
    tip_amount = (bill * tip / 100).quantize(CENT, ROUND_HALF_UP)
    total = (bill + tip_amount).quantize(CENT, ROUND_HALF_UP)
    return tip_amount, total, (total / people).quantize(CENT, ROUND_HALF_UP)


@app.route("/", methods=["GET", "POST"])
def calculator():
    """The form; after a submission, the result or the error."""
    result = error = None
    if request.method == "POST":
        try:
            bill, tip, people = parse(request.form)
        except ValueError as exc:
            error = str(exc)
        else:
            result = calculate(bill, tip, people)
            HISTORY.append((bill, tip, people, result[1], result[2]))
    return render_template("calculator.html", result=result, error=error, form=request.form)


@app.route("/history")
def history():
    """Every calculation so far, newest first."""
    return render_template("history.html", rows=list(reversed(HISTORY)))


if __name__ == "__main__":
    app.run()
