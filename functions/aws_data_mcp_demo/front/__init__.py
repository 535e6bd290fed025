"""The hosted path on one machine: a local API Gateway front (`gateway`), its demo issuer and sign-in
(`authorization_server`, with clients named by their metadata documents: `client_documents`), and the process that
serves them before the real Lambda handler (`hosted`)."""
