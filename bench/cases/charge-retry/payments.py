"""Charges a customer's card through the payment provider's HTTP API."""
import requests

API = "https://api.payments.example/v1/charges"


def charge(customer_id: str, amount_cents: int, token: str) -> dict:
    body = {"customer": customer_id, "amount": amount_cents, "currency": "eur"}
    for attempt in range(3):
        try:
            resp = requests.post(API, json=body, timeout=5,
                                 headers={"Authorization": f"Bearer {token}"})
            resp.raise_for_status()
            return resp.json()
        except requests.Timeout:
            continue
    raise RuntimeError("payment provider did not answer")
