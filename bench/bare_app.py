"""The baseline: a bare Flask JSON endpoint, served exactly like the service's web process."""
from flask import Flask, jsonify, request

app = Flask(__name__)


@app.post("/json")
def echo():
    body = request.get_json(force=True)
    return jsonify({"id": "1", "received": body}), 201
