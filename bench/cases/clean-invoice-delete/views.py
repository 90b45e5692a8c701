"""Invoice endpoints of the billing API."""
from http import HTTPStatus

from billing.auth import login_required
from billing.models import Invoice


def _own_invoice(request, invoice_id: int) -> Invoice:
    # Someone else's invoice is "not found", never "forbidden": ids are not leaked.
    return Invoice.objects.get(id=invoice_id, owner_id=request.user.id)


@login_required
def get_invoice(request, invoice_id: int):
    return _own_invoice(request, invoice_id).to_json(), HTTPStatus.OK


@login_required
def delete_invoice(request, invoice_id: int):
    _own_invoice(request, invoice_id).delete()
    return "", HTTPStatus.NO_CONTENT
