Feature: Inline validation of the sign-up fields
  Errors appear under a field once it has been left, then follow its value as it changes.

  Background:
    Given the sign-up page is open

  @R1
  Scenario: Typing into an untouched field shows no error
    When I type "ab" into the username field
    Then the username error is empty
    And the username field is not marked invalid

  @R1
  Scenario: Leaving an empty field shows the required message
    When I leave the email field
    Then the email error is "Email is required"
    And the email field is marked invalid
    And the username error is empty

  @R1
  Scenario: A touched field is re-validated while typing
    When I type "ab" into the username field
    And I leave the username field
    Then the username error is "Username must be 3-16 characters"
    And the username field is marked invalid
    When I type "c" into the username field
    Then the username error is empty
    And the username field is not marked invalid

  @R2
  Scenario Outline: Username rules
    When I type "<value>" into the username field
    And I leave the username field
    Then the username error is "<message>"

    Examples:
      | value             | message                                                             |
      | abcdefghijklmnopq | Username must be 3-16 characters                                    |
      | Alice             | Username may only contain lowercase letters, digits and underscores |
      | a_1               |                                                                     |
      | abcdefghij_12345  |                                                                     |

  @R3
  Scenario Outline: Malformed email addresses are rejected
    When I type "<value>" into the email field
    And I leave the email field
    Then the email error is "Enter a valid email address"

    Examples:
      | value              |
      | alice@example      |
      | al ice@example.com |
      | alice@example..com |

  @R3
  Scenario: An email with surrounding spaces and several domain labels is valid
    When I type "  First.Last@Mail.Example.org  " into the email field
    And I leave the email field
    Then the email error is empty
    And the email field is not marked invalid

  @R4
  Scenario Outline: Password rules
    When I type "<value>" into the password field
    And I leave the password field
    Then the password error is "<message>"

    Examples:
      | value    | message                                    |
      | Secret1  | Password must be at least 8 characters     |
      | 12345678 | Password must contain a letter and a digit |

  @R4
  Scenario: A confirmation that differs from the password
    When I type "Secret123" into the password field
    And I type "Secret124" into the confirm password field
    And I leave the confirm password field
    Then the confirm password error is "Passwords do not match"
    And the confirm password field is marked invalid
    And the password error is empty

  @R4
  Scenario: Editing the password re-validates a touched confirmation
    When I type "Secret123" into the password field
    And I type "Secret123" into the confirm password field
    And I leave the confirm password field
    Then the confirm password error is empty
    When I type "4" into the password field
    Then the confirm password error is "Passwords do not match"
    When I replace the password field with "Secret123"
    Then the confirm password error is empty

  @R5
  Scenario Outline: Age rules
    When I type "<value>" into the age field
    And I leave the age field
    Then the age error is "<message>"

    Examples:
      | value | message                                  |
      | 12    | You must be between 13 and 120 years old |
      | 121   | You must be between 13 and 120 years old |
      | 12.5  | Age must be a whole number               |
      | 120   |                                          |

  @R6
  Scenario: Leaving the country select without a choice
    When I leave the country field
    Then the country error is "Please select a country"
    And the country field is marked invalid

  @R6
  Scenario: Choosing a country clears its error
    When I leave the country field
    And I select the country "jp"
    Then the country error is empty
    And the country field is not marked invalid

  @R6
  Scenario: Unchecking the terms shows an error until they are checked again
    When I click the terms checkbox
    Then the terms error is empty
    When I click the terms checkbox
    Then the terms error is "You must accept the terms"
    And the terms field is marked invalid
    When I click the terms checkbox
    Then the terms error is empty
    And the terms field is not marked invalid
