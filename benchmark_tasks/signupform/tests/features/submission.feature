Feature: Submitting the sign-up form
  The form can only be submitted when valid; a summary then replaces it.

  Background:
    Given the sign-up page is open

  @R9
  Scenario: The submit button starts disabled
    Then the submit button is disabled
    When I type "alice" into the username field
    Then the submit button is disabled

  @R9
  Scenario: The last valid value enables the button without leaving its field
    When I fill in the form with valid values except the username
    Then the submit button is disabled
    When I type "alice" into the username field
    Then the submit button is enabled
    And the username error is empty

  @R9
  Scenario: Making a field invalid disables the button again
    Given I filled in the form with valid values
    When I click the terms checkbox
    Then the submit button is disabled
    When I click the terms checkbox
    And I replace the age field with "12"
    Then the submit button is disabled

  @R10
  Scenario: Enter in the age field submits a valid form
    Given I filled in the form with valid values
    When I press Enter in the age field
    Then the summary is shown instead of the form

  @R10
  Scenario: Enter in the username field submits a valid form
    Given I filled in the form with valid values
    When I press Enter in the username field
    Then the summary is shown instead of the form

  @R10
  Scenario: Enter on an invalid form shows every error
    When I type "alice" into the username field
    And I type "abc" into the age field
    And I press Enter in the age field
    Then the form is still shown without a summary
    And the username error is empty
    And the email error is "Email is required"
    And the password error is "Password is required"
    And the confirm password error is "Please confirm your password"
    And the age error is "Age must be a whole number"
    And the country error is "Please select a country"
    And the terms error is "You must accept the terms"

  @R11
  Scenario: Clicking the submit button shows the summary
    Given I filled in the form with valid values
    When I click the submit button
    Then the summary is shown instead of the form
    And the summary title is "Welcome, alice!"
    And the summary email is "alice@example.com"
    And the summary age is "30"
    And the summary country is "Canada"
    And the summary plan is "Free plan: $0.00 / month"

  @R11
  Scenario: The summary normalises the email and the age
    When I type "bob_42" into the username field
    And I type " Bob@Example.COM" into the email field
    And I type "Passw0rd" into the password field
    And I type "Passw0rd" into the confirm password field
    And I type "030" into the age field
    And I select the country "de"
    And I choose the pro plan
    And I click the terms checkbox
    And I click the submit button
    Then the summary is shown instead of the form
    And the summary title is "Welcome, bob_42!"
    And the summary email is "bob@example.com"
    And the summary age is "30"
    And the summary country is "Germany"
    And the summary plan is "Pro plan: $14.28 / month incl. VAT"

  @R11
  Scenario: The summary shows the plan with VAT
    Given I filled in the form with valid values
    When I select the country "gb"
    And I choose the pro plan
    And I click the submit button
    Then the summary is shown instead of the form
    And the summary country is "United Kingdom"
    And the summary plan is "Pro plan: $14.40 / month incl. VAT"
