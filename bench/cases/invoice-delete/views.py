"""Invoice endpoints of the billing API."""
from http import HTTPStatus

from billing.auth import login_required
from billing.models import Invoice


@login_required
def get_invoice(request, invoice_id: int):
    invoice = Invoice.objects.get(id=invoice_id, owner_id=request.user.id)
    return invoice.to_json(), HTTPStatus.OK


@login_required
def delete_invoice(request, invoice_id: int):
    invoice = Invoice.objects.get(id=invoice_id)
    invoice.delete()
    return "", HTTPStatus.NO_CONTENT
